package io.gpuremediator.backtest;

import io.gpuremediator.action.DrainAction;
import io.gpuremediator.action.GpuResetAction;
import io.gpuremediator.action.RebootAction;
import io.gpuremediator.action.ReplaceAction;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.playbook.ActionSpec;
import java.io.PrintStream;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a replay would have done, per day (UTC): the nodes that would have been quarantined, and of those drained,
 * repaired (GPU reset, reboot) or replaced, by their playbooks' steps; the nodes each limit would have refused, by its
 * reason code; the alerts left alone, by reason; and the storms the breaker would have stopped.
 */
public final class BacktestReport {
  private static final String DRAIN = ActionSpec.kindOf(DrainAction.DrainSpec.class);
  private static final Set<String> REPAIRS = Set.of(ActionSpec.kindOf(GpuResetAction.GpuResetSpec.class),
      ActionSpec.kindOf(RebootAction.RebootSpec.class));
  private static final String REPLACE = ActionSpec.kindOf(ReplaceAction.ReplaceSpec.class);
  /** What was done first, then what was refused, then what was left alone. */
  private static final List<String> ORDER = List.of("quarantined", "drained", "repaired", "replaced", "refused ");

  /** One day's findings: category ({@code quarantined}, {@code refused breaker_open}, ...) to nodes. */
  private final Map<LocalDate, Map<String, Set<String>>> days = new TreeMap<>();
  private final Map<LocalDate, Instant> stormStarts = new TreeMap<>();

  /** Sorts the decisions of a replay into days and categories. */
  public static BacktestReport of(List<Decision> decisions) {
    BacktestReport r = new BacktestReport();
    for (Decision d : decisions) {
      if (!"firing".equals(d.status())) {
        continue;
      }
      LocalDate day = LocalDate.ofInstant(d.time(), ZoneOffset.UTC);
      String node = d.node().isEmpty() ? "(no node)" : d.node();
      if (d.outcome() == Outcome.DRY_RUN && d.wouldBeRefused().isEmpty()) {
        r.add(day, "quarantined", node);
        for (ActionRecord a : d.actions()) {
          if (a.type().equals(DRAIN)) {
            r.add(day, "drained", node);
          } else if (REPAIRS.contains(a.type())) {
            r.add(day, "repaired", node);
          } else if (a.type().equals(REPLACE)) {
            r.add(day, "replaced", node);
          }
        }
      } else if (d.outcome() == Outcome.DRY_RUN || d.outcome() == Outcome.SUPPRESSED) {
        Reason reason = d.wouldBeRefused().map(Refusal::reason).orElse(d.reason());
        r.add(day, "refused " + reason.code(), node);
        if (reason == Reason.BREAKER_OPEN) {
          r.stormStarts.merge(day, d.time(), (a, b) -> a.isBefore(b) ? a : b);
        }
      } else {
        r.add(day, d.outcome().code() + " " + d.reason().code(), node);
      }
    }
    return r;
  }

  private void add(LocalDate day, String category, String node) {
    days.computeIfAbsent(day, k -> new TreeMap<>(BacktestReport::compare)).computeIfAbsent(category, k -> new TreeSet<>())
        .add(node);
  }

  private static int compare(String a, String b) {
    int byRank = Integer.compare(rank(a), rank(b));
    return byRank != 0 ? byRank : a.compareTo(b);
  }

  private static int rank(String category) {
    for (int i = 0; i < ORDER.size(); i++) {
      if (category.startsWith(ORDER.get(i))) {
        return i;
      }
    }
    return ORDER.size();
  }

  /** Whether the breaker would have stopped a storm on any day. */
  public boolean anyStorm() {
    return !stormStarts.isEmpty();
  }

  /** Prints the days from {@code first} to {@code last}, each category a line, and a total. */
  public void print(PrintStream out, LocalDate first, LocalDate last) {
    Map<String, Set<String>> total = new TreeMap<>(BacktestReport::compare);
    for (LocalDate day = first; !day.isAfter(last); day = day.plusDays(1)) {
      Map<String, Set<String>> found = days.getOrDefault(day, Map.of());
      if (found.isEmpty()) {
        out.println(day + "  nothing would have been done");
        continue;
      }
      out.println(day);
      found.forEach((category, nodes) -> {
        out.printf("  %-34s %d: %s%n", category, nodes.size(), String.join(", ", nodes));
        total.computeIfAbsent(category, k -> new TreeSet<>()).addAll(nodes);
      });
      if (stormStarts.containsKey(day)) {
        out.println("  storm: the breaker would have stopped " + found.get("refused " + Reason.BREAKER_OPEN.code()).size()
            + " nodes, the first at " + stormStarts.get(day));
      }
    }
    StringBuilder b = new StringBuilder("total (distinct nodes):");
    if (total.isEmpty()) {
      b.append(" nothing");
    }
    total.forEach((category, nodes) -> b.append(' ').append(category).append(' ').append(nodes.size()).append(';'));
    out.println(b.charAt(b.length() - 1) == ';' ? b.substring(0, b.length() - 1) : b.toString());
  }
}
