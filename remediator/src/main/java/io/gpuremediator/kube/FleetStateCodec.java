package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuremediator.safety.FleetState;
import io.gpuremediator.safety.FleetState.Breaker;
import io.gpuremediator.safety.FleetState.Incident;
import io.gpuremediator.safety.FleetState.Pause;
import io.gpuremediator.safety.FleetState.Sighting;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** The stored form of the fleet state, in the state ConfigMap: readable JSON, and the storm's sightings gzipped. */
final class FleetStateCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FleetStateCodec() {}

  /**
   * The stored form: the readable part ({@code fleet.json}: breaker, pause, starts, incidents) and the storm's
   * sightings, gzipped ({@code sightings.json.gz}): a node's two times under its name, which for 20,000 nodes in a
   * storm take a fraction of a ConfigMap's 1 MiB.
   */
  record Stored(String json, byte[] sightings) {
    /** What the API server counts against the ConfigMap's 1 MiB. */
    int bytes() {
      return json.getBytes(StandardCharsets.UTF_8).length + sightings.length;
    }
  }

  static Stored encode(FleetState s) {
    ObjectNode root = JSON.createObjectNode();
    root.put("v", 2);
    root.putObject("breaker").put("open", s.breaker().open()).put("opened_at", s.breaker().openedAt().toString())
        .put("reason", s.breaker().reason());
    s.pause().ifPresent(p -> root.putObject("pause").put("reason", p.reason()).put("until", p.until().toString())
        .put("since", p.since().toString()).put("by", p.by()));
    times(root.putArray("starts"), s.starts());
    if (!s.replacements().isEmpty()) {
      times(root.putArray("replacements"), s.replacements());
    }
    ObjectNode byPlaybook = root.putObject("playbook_starts");
    s.playbookStarts().forEach((k, v) -> times(byPlaybook.putArray(k), v));
    if (!s.incidents().isEmpty()) {
      ArrayNode incidents = root.putArray("incidents");
      s.incidents().values().forEach(i -> {
        ObjectNode o = incidents.addObject().put("label", i.label()).put("value", i.value())
            .put("opened_at", i.openedAt().toString()).put("reason", i.reason());
        i.nodes().forEach(o.putArray("nodes")::add);
      });
    }
    ObjectNode sightings = JSON.createObjectNode();
    compact(sightings.putObject("firing"), s.firing());
    compact(sightings.putObject("acknowledged"), s.acknowledged());
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      JSON.writeValue(out, sightings);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Stored(root.toPrettyString(), gz.toByteArray());
  }

  private static void compact(ObjectNode out, Map<String, Sighting> sightings) {
    sightings.forEach((k, v) -> out.putArray(k).add(v.startedAt().toString()).add(v.seenAt().toString()));
  }

  /**
   * A node's sighting: its two times (this form); before it, in {@code fleet.json}, an object of two times,
   * or a bare time from before sightings had a time seen (then both).
   */
  private static Map<String, Sighting> sightings(JsonNode in) {
    Map<String, Sighting> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = in.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      out.put(e.getKey(), v.isArray() ? new Sighting(Instant.parse(v.path(0).asText()), Instant.parse(v.path(1).asText()))
          : v.isTextual() ? new Sighting(Instant.parse(v.asText()), Instant.parse(v.asText()))
          : new Sighting(Instant.parse(v.path("started").asText()), Instant.parse(v.path("seen").asText())));
    }
    return out;
  }

  private static void times(ArrayNode array, List<Instant> times) {
    times.forEach(t -> array.add(t.toString()));
  }

  /** The state as stored: {@code sightings} empty in the form before they were gzipped apart (then in the JSON). */
  static FleetState decode(String json, Optional<byte[]> sightings) {
    try {
      JsonNode root = JSON.readTree(json);
      JsonNode stored = root;
      if (sightings.isPresent()) {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(sightings.get()))) {
          stored = JSON.readTree(in);
        }
      }
      JsonNode b = root.path("breaker");
      Breaker breaker = b.path("open").asBoolean(false)
          ? new Breaker(true, Instant.parse(b.path("opened_at").asText()), b.path("reason").asText()) : Breaker.CLOSED;
      JsonNode p = root.path("pause");
      // "by" came later: a pause stored before it reads as by nobody named.
      Optional<Pause> pause = p.isObject() ? Optional.of(new Pause(p.path("reason").asText(),
          Instant.parse(p.path("until").asText()), Instant.parse(p.path("since").asText()), p.path("by").asText("")))
          : Optional.empty();
      Map<String, List<Instant>> byPlaybook = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = root.path("playbook_starts").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        byPlaybook.put(e.getKey(), times(e.getValue()));
      }
      Map<String, Incident> incidents = new TreeMap<>();
      for (JsonNode i : root.path("incidents")) {
        List<String> nodes = new ArrayList<>();
        i.path("nodes").forEach(n -> nodes.add(n.asText()));
        Incident open = new Incident(i.path("label").asText(), i.path("value").asText(),
            Instant.parse(i.path("opened_at").asText()), nodes, i.path("reason").asText());
        incidents.put(Incident.key(open.label(), open.value()), open);
      }
      return new FleetState(breaker, pause, times(root.path("starts")), byPlaybook, sightings(stored.path("firing")),
          sightings(stored.path("acknowledged")), times(root.path("replacements")), incidents);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("fleet state is unreadable: " + e.getMessage(), e);
    }
  }

  private static List<Instant> times(JsonNode array) {
    List<Instant> out = new ArrayList<>();
    array.forEach(t -> out.add(Instant.parse(t.asText())));
    return out;
  }
}
