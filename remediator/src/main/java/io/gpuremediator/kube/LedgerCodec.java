package io.gpuremediator.kube;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuremediator.bounded.BoundedMap;
import io.gpuremediator.state.Claim;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Held;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.PastEpisode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The JSON form of a node ledger, as stored in the {@code gpu-remediator.io/state} annotation. Version 2 keeps what
 * episodes hold off the node as {@code holdings}, each under its key with its value and its holders (fingerprint: step
 * key; none: to be given back); version 1, which releases before it wrote, is read too ({@link LedgerV1}).
 */
final class LedgerCodec {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int VERSION = 2;
  /** About the ledgers of the writes in flight and of the watch events that follow them. */
  private static final int REMEMBERED = 512;
  /**
   * The ledgers of the texts encoded or decoded last, by text: the answer to our write and its watch event carry the
   * text we just encoded, and decoding it again (JSON, then every time in it) costs more than the rest of the node.
   * Sound because decoding what {@link #encode} wrote gives back an equal ledger (LedgerCodecTest).
   */
  private static final Map<String, NodeLedger> RECENT = Collections.synchronizedMap(
      BoundedMap.leastRecentlyUsed(REMEMBERED));

  private LedgerCodec() {}

  /** Encodes a ledger compactly, with sorted keys. */
  static String encode(NodeLedger ledger) {
    String text = json(ledger);
    RECENT.put(text, ledger);
    return text;
  }

  /** Written as it goes, not built as a tree first: a quarantine's answer waits for it. Keys in the order decoded. */
  private static String json(NodeLedger ledger) {
    StringWriter out = new StringWriter(512);
    try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("v", VERSION);
      g.writeObjectFieldStart("claims");
      for (Map.Entry<String, Claim> e : ledger.claims().entrySet()) {
        g.writeObjectFieldStart(e.getKey());
        g.writeArrayFieldStart("holders");
        for (String holder : e.getValue().holders()) {
          g.writeString(holder);
        }
        g.writeEndArray();
        if (e.getValue().preexisting()) {
          g.writeBooleanField("preexisting", true);
        }
        g.writeEndObject();
      }
      g.writeEndObject();
      g.writeObjectFieldStart("episodes");
      for (Map.Entry<String, Episode> e : ledger.episodes().entrySet()) {
        episode(g, e.getKey(), e.getValue());
      }
      g.writeEndObject();
      LedgerHolds.write(g, ledger);
      g.writeArrayFieldStart("history");
      for (PastEpisode p : ledger.history()) {
        g.writeStartObject();
        g.writeStringField("fingerprint", p.fingerprint());
        g.writeStringField("starts_at", p.startsAt().toString());
        g.writeStringField("playbook", p.playbook());
        g.writeStringField("since", p.since().toString());
        g.writeStringField("released_at", p.releasedAt().toString());
        if (!p.matched().equals(p.playbook())) {
          g.writeStringField("matched", p.matched());
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to a string cannot fail", e);
    }
    return out.toString();
  }

  private static void episode(JsonGenerator g, String fingerprint, Episode e) throws IOException {
    g.writeObjectFieldStart(fingerprint);
    g.writeStringField("alertname", e.alertname());
    g.writeStringField("playbook", e.playbook());
    if (!e.matched().equals(e.playbook())) {
      g.writeStringField("matched", e.matched());
    }
    g.writeStringField("starts_at", e.startsAt().toString());
    g.writeStringField("since", e.since().toString());
    if (!e.progress().equals(Progress.settled(e.since()))) {
      g.writeFieldName("progress");
      progress(g, e.progress());
    }
    JsonStrings.strings(g, "labels", e.labels());
    JsonStrings.strings(g, "annotations", e.annotations());
    if (!e.notified().isEmpty()) {
      g.writeArrayFieldStart("notified");
      for (String step : e.notified()) {
        g.writeString(step);
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  /** Decodes a ledger; throws {@link IllegalArgumentException} naming what is wrong. */
  static NodeLedger decode(String json) {
    NodeLedger known = RECENT.get(json);
    if (known != null) {
      return known;
    }
    NodeLedger decoded = parse(json);
    RECENT.put(json, decoded);
    return decoded;
  }

  /** Decodes without the ledgers remembered: what {@link #decode} does with a text it has not seen. */
  static NodeLedger parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON");
    }
    int version = root == null || !root.isObject() ? 0 : root.path("v").asInt();
    if (version != VERSION && version != LedgerV1.VERSION) {
      throw new IllegalArgumentException("not a version " + LedgerV1.VERSION + " or " + VERSION + " ledger");
    }
    Map<String, Claim> claims = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("claims").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      TreeSet<String> holders = new TreeSet<>();
      JsonNode list = e.getValue().path("holders");
      if (!list.isArray() || list.isEmpty()) {
        throw new IllegalArgumentException("claim " + e.getKey() + " has no holders");
      }
      list.forEach(h -> holders.add(h.asText()));
      claims.put(e.getKey(), new Claim(holders, e.getValue().path("preexisting").asBoolean(false)));
    }
    LedgerHolds holds = version == VERSION ? LedgerHolds.read(root.path("holdings")) : LedgerV1.holds(root);
    Map<String, Episode> episodes = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("episodes").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode o = e.getValue();
      try {
        Instant since = Instant.parse(o.path("since").asText());
        Progress progress = o.has("progress") ? decodeProgress(e.getKey(), o.path("progress")) : Progress.settled(since);
        TreeSet<String> notified = new TreeSet<>();
        o.path("notified").forEach(step -> notified.add(step.asText()));
        notified.addAll(holds.notifiedBy(e.getKey()));
        episodes.put(e.getKey(), new Episode(e.getKey(), o.path("alertname").asText(), o.path("playbook").asText(),
            Instant.parse(o.path("starts_at").asText()), since, progress, new TreeMap<>(JsonStrings.strings(o.path("labels"))),
            new TreeMap<>(JsonStrings.strings(o.path("annotations"))), holds.byEpisode().getOrDefault(e.getKey(), new TreeMap<>()),
            notified, o.path("matched").asText("")));
      } catch (DateTimeParseException ex) {
        throw new IllegalArgumentException("episode " + e.getKey() + " has a bad time");
      }
    }
    List<PastEpisode> history = new ArrayList<>();
    for (JsonNode p : root.path("history")) {
      try {
        history.add(new PastEpisode(p.path("fingerprint").asText(), Instant.parse(p.path("starts_at").asText()),
            p.path("playbook").asText(), Instant.parse(p.path("since").asText()), Instant.parse(p.path("released_at").asText()),
            p.path("matched").asText("")));
      } catch (DateTimeParseException ex) {
        throw new IllegalArgumentException("a past episode has a bad time");
      }
    }
    List<Held> unheld = new ArrayList<>(holds.unheld());
    // One whose holders are none of the active episodes (a hand-edited ledger) is no longer held: it is given back.
    holds.byEpisode().forEach((fp, held) -> {
      if (!episodes.containsKey(fp)) {
        unheld.addAll(held.values());
      }
    });
    return NodeLedger.of(claims, episodes, history, unheld);
  }

  private static void progress(JsonGenerator g, Progress p) throws IOException {
    g.writeStartObject();
    g.writeStringField("stage", p.stage().code());
    g.writeStringField("stage_since", p.stageSince().toString());
    if (p.resolved()) {
      g.writeBooleanField("resolved", true);
    }
    if (p.releasing()) {
      g.writeBooleanField("releasing", true);
    }
    if (p.next() != Progress.DONE) {
      g.writeNumberField("next", p.next());
    }
    if (p.task().isPresent()) {
      Progress.Task t = p.task().get();
      g.writeObjectFieldStart("task");
      g.writeStringField("kind", t.kind());
      g.writeNumberField("step", t.step());
      g.writeStringField("started", t.started().toString());
      g.writeNumberField("attempt", t.attempt());
      if (!t.handle().isEmpty()) {
        g.writeStringField("handle", t.handle());
      }
      if (t.retryAt().isPresent()) {
        g.writeStringField("retry_at", t.retryAt().get().toString());
      }
      g.writeEndObject();
    }
    if (!p.note().isEmpty()) {
      g.writeStringField("note", p.note());
    }
    g.writeEndObject();
  }

  private static Progress decodeProgress(String fingerprint, JsonNode o) {
    Stage stage = Stage.fromCode(o.path("stage").asText())
        .orElseThrow(() -> new IllegalArgumentException("episode " + fingerprint + " has an unknown stage"));
    int next = o.has("next") ? o.path("next").asInt(-1) : Progress.DONE;
    if (next < 0) {
      throw new IllegalArgumentException("episode " + fingerprint + " has a bad step index");
    }
    Optional<Progress.Task> task = Optional.empty();
    JsonNode t = o.path("task");
    if (t.isObject()) {
      task = Optional.of(new Progress.Task(t.path("kind").asText(), t.path("step").asInt(), Instant.parse(t.path("started").asText()),
          t.path("attempt").asInt(1), t.path("handle").asText(""),
          t.has("retry_at") ? Optional.of(Instant.parse(t.path("retry_at").asText())) : Optional.empty()));
    }
    return new Progress(stage, Instant.parse(o.path("stage_since").asText()), o.path("resolved").asBoolean(false),
        o.path("releasing").asBoolean(false), next, task, o.path("note").asText(""));
  }
}
