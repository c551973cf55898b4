package io.gpuremediator.playbook.load;

import io.gpuremediator.action.ActionKind;
import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import io.gpuremediator.yaml.YamlFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;

/** Loads playbook files strictly. Stateless and thread-safe. */
public final class PlaybookLoader {
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private PlaybookLoader() {}

  /** Loads every playbook of these sources; playbook names must be unique across all files. */
  public static LoadResult load(List<Path> sources) {
    List<Path> files;
    try {
      files = PlaybookSources.expand(sources);
    } catch (IOException e) {
      return new LoadResult(PlaybookSet.EMPTY, List.of(new PlaybookFile(sources.isEmpty() ? Path.of(".") : sources.get(0),
          List.of(), List.of(sources + ":1: cannot list playbook directory: " + e.getMessage()))));
    }
    List<PlaybookFile> results = new ArrayList<>();
    Map<String, String> seen = new HashMap<>();
    List<Playbook> all = new ArrayList<>();
    MessageDigest digest = sha256();
    for (Path file : files) {
      PlaybookFile result = loadFile(file, seen);
      results.add(result);
      all.addAll(result.playbooks());
      try {
        digest.update(file.toString().getBytes(StandardCharsets.UTF_8));
        digest.update(Files.readAllBytes(file));
      } catch (IOException e) {
        // already reported by loadFile
      }
    }
    results = checkEscalations(all, results);
    String version = HexFormat.of().formatHex(digest.digest()).substring(0, 12);
    return new LoadResult(new PlaybookSet(all, version), results);
  }

  /** Escalation and on_fail targets must name another playbook; the error goes to the file that names it. */
  private static List<PlaybookFile> checkEscalations(List<Playbook> all, List<PlaybookFile> files) {
    Set<String> names = new HashSet<>();
    all.forEach(p -> names.add(p.name()));
    List<PlaybookFile> checked = new ArrayList<>();
    for (PlaybookFile f : files) {
      List<String> errors = new ArrayList<>(f.errors());
      for (Playbook p : f.playbooks()) {
        p.escalate().ifPresent(e -> {
          if (!names.contains(e.to()) || e.to().equals(p.name())) {
            errors.add(p.source() + ": escalate.to \"" + e.to() + "\" names no other playbook");
          }
        });
        Stream.concat(p.actions().stream(), p.onResolved().stream())
            .flatMap(a -> a.escalationTargets().stream()).distinct().filter(to -> !names.contains(to) || to.equals(p.name()))
            .forEach(to -> errors.add(p.source() + ": on_fail or on_verdict \"" + to + "\" names no other playbook"));
      }
      checked.add(new PlaybookFile(f.path(), f.playbooks(), errors));
    }
    return checked;
  }

  /** Loads one file on its own (names need only be unique within it). */
  public static PlaybookFile loadFile(Path file) {
    return loadFile(file, new HashMap<>());
  }

  /** The name of the pre-flight gate's playbook, which the service builds from its config. */
  private static final String RESERVED_NAME = "preflight";

  private static PlaybookFile loadFile(Path file, Map<String, String> seenNames) {
    Problems problems = new Problems(file.toString());
    List<Playbook> playbooks = new ArrayList<>();
    YamlFile.read(file, problems).flatMap(root -> MapReader.of(root, "playbook file", problems)).ifPresent(top -> {
      Optional<List<Node>> items = top.list("playbooks");
      if (!top.has("playbooks")) {
        problems.add(top.node(), "missing required key \"playbooks\" in playbook file");
      }
      top.finish();
      items.ifPresent(list -> {
        for (Node item : list) {
          readPlaybook(item, problems, seenNames).ifPresent(playbooks::add);
        }
      });
    });
    // Playbooks that parsed are kept even when the file has errors, so cross-file checks still run on them;
    // an invalid file is never put in force (LoadResult.isValid).
    return new PlaybookFile(file, playbooks, problems.messages());
  }

  private static Optional<Playbook> readPlaybook(Node item, Problems problems, Map<String, String> seenNames) {
    Optional<MapReader> reader = MapReader.of(item, "playbook", problems);
    if (reader.isEmpty()) {
      return Optional.empty();
    }
    MapReader m = reader.get();
    int before = problems.messages().size();
    String where = problems.file() + ":" + Problems.lineOf(item);
    Optional<String> name = m.requiredString("name").filter(n -> {
      if (!NAME.matcher(n).matches()) {
        problems.add(m.at("name"), "playbook name \"" + n + "\" must be lowercase letters, digits and '-' (at most 63)");
        return false;
      }
      if (n.equals(RESERVED_NAME)) {
        problems.add(m.at("name"), "playbook name \"" + n + "\" is the pre-flight gate's own (preflight in the service"
            + " config); choose another");
        return false;
      }
      String earlier = seenNames.putIfAbsent(n, where);
      if (earlier != null) {
        problems.add(m.at("name"), "playbook name \"" + n + "\" is already used at " + earlier);
        return false;
      }
      return true;
    });
    String description = m.string("description").orElse("");
    List<Matcher> matchers = readMatchers(m, "match", true, problems);
    List<Matcher> nodeMatchers = readMatchers(m, "match_node", false, problems);
    boolean dryRun = m.bool("dry_run").orElse(false);
    Optional<Rate> rate = m.parsed("rate_limit", Rate::parse);
    Optional<Duration> cooldown = m.parsed("cooldown", Durations::parse);
    List<ActionSpec> actions = readActions(m, "actions", Phase.FIRING, true, problems);
    List<ActionSpec> onResolved = readActions(m, "on_resolved", Phase.RESOLVED, false, problems);
    Optional<Playbook.Escalation> escalate = m.map("escalate", "escalate").flatMap(e -> readEscalation(e, problems));
    m.finish();
    if (problems.messages().size() != before || name.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Playbook(name.get(), description, matchers, nodeMatchers, dryRun, rate, cooldown, actions, onResolved,
        escalate, where));
  }

  private static Optional<Playbook.Escalation> readEscalation(MapReader e, Problems problems) {
    boolean complete = e.has("after") && e.has("within") && e.has("to");
    Optional<Long> after = e.count("after");
    Optional<Duration> within = e.parsed("within", Durations::parse);
    Optional<String> to = e.string("to");
    e.finish();
    if (!complete) {
      problems.add(e.node(), "escalate needs after, within and to");
      return Optional.empty();
    }
    if (after.isPresent() && after.get() < 2) {
      problems.add(e.at("after"), "\"after\" in escalate must be at least 2 (the 2nd episode is the first repeat)");
      return Optional.empty();
    }
    if (after.isEmpty() || within.isEmpty() || to.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Playbook.Escalation(after.get().intValue(), within.get(), to.get()));
  }

  /**
   * Alertmanager-style matchers under {@code key}: over the alert's labels, required ({@code match}); or over its Node's
   * labels, optional ({@code match_node}).
   */
  private static List<Matcher> readMatchers(MapReader m, String key, boolean required, Problems problems) {
    if (required && !m.has(key)) {
      problems.add(m.node(), "missing required key \"" + key + "\" in playbook");
    }
    List<Matcher> matchers = new ArrayList<>();
    m.list(key).ifPresent(items -> {
      if (items.isEmpty()) {
        problems.add(m.at(key), "\"" + key + "\" in playbook must list at least one matcher");
      }
      for (Node item : items) {
        m.scalar(item, key).ifPresent(text -> {
          MapReader.Parsed<Matcher> parsed = required ? Matcher.parse(text) : Matcher.parseNodeLabel(text);
          if (parsed.error() != null) {
            problems.add(item, (required ? "" : key + ": ") + parsed.error());
          } else {
            matchers.add(parsed.value());
          }
        });
      }
    });
    return matchers;
  }

  private static List<ActionSpec> readActions(MapReader m, String key, Phase phase, boolean required, Problems problems) {
    if (required && !m.has(key)) {
      problems.add(m.node(), "missing required key \"" + key + "\" in playbook");
    }
    List<ActionSpec> specs = new ArrayList<>();
    m.list(key).ifPresent(items -> {
      if (items.isEmpty()) {
        problems.add(m.at(key), "\"" + key + "\" in playbook must list at least one action");
      }
      boolean proven = false; // in actions, a diagnose that proves the node healthy lets release steps follow it
      for (Node item : items) {
        Optional<ActionSpec> spec = readAction(item, phase, proven, key, problems);
        spec.ifPresent(specs::add);
        proven |= spec.filter(a -> a.provesHealthy() && !a.dryRun()).isPresent();
      }
    });
    return specs;
  }

  private static Optional<ActionSpec> readAction(Node item, Phase phase, boolean proven, String listName,
      Problems problems) {
    Optional<MapReader> reader = MapReader.of(item, "action", problems);
    if (reader.isEmpty()) {
      return Optional.empty();
    }
    MapReader entry = reader.get();
    if (entry.keys().size() != 1) {
      problems.add(item, "an action has exactly one key, its kind (" + String.join(", ", ActionRegistry.names()) + ")");
      return Optional.empty();
    }
    String kindName = entry.keys().get(0);
    Optional<ActionKind<?>> kind = ActionRegistry.named(kindName);
    if (kind.isEmpty()) {
      problems.add(item, "unknown action \"" + kindName + "\" (known: " + String.join(", ", ActionRegistry.names()) + ")");
      return Optional.empty();
    }
    boolean releaseAfterDiagnose = phase == Phase.FIRING && proven && kind.get().phases().contains(Phase.RESOLVED);
    if (!kind.get().phases().contains(phase) && !releaseAfterDiagnose) {
      problems.add(item, "action \"" + kindName + "\" cannot be used in " + listName
          + (phase == Phase.RESOLVED ? " (it changes the node; on_resolved only undoes)"
              : " (it only undoes; use it in on_resolved, or in actions after a diagnose step)"));
      return Optional.empty();
    }
    Node paramsNode = entry.take(kindName).orElse(new MappingNode(
        Tag.MAP, List.of(), DumperOptions.FlowStyle.FLOW));
    if (paramsNode instanceof ScalarNode) {
      problems.add(paramsNode, "parameters of action \"" + kindName + "\" must be a mapping (use {} for none)");
      return Optional.empty();
    }
    return MapReader.of(paramsNode, kindName + " action", problems).flatMap(params -> {
      int before = problems.messages().size();
      boolean dryRun = params.bool("dry_run").orElse(false);
      Optional<? extends ActionSpec> spec = kind.get().decode(params, dryRun);
      params.finish();
      return problems.messages().size() == before ? spec.map(ActionSpec.class::cast) : Optional.empty();
    });
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
