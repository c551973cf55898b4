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
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The JSON form of the fleet state, as stored in the state ConfigMap. */
final class FleetStateCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FleetStateCodec() {}

  static String encode(FleetState s) {
    ObjectNode root = JSON.createObjectNode();
    root.put("v", 1);
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
    sightings(root.putObject("firing"), s.firing());
    sightings(root.putObject("acknowledged"), s.acknowledged());
    if (!s.incidents().isEmpty()) {
      ArrayNode incidents = root.putArray("incidents");
      s.incidents().values().forEach(i -> {
        ObjectNode o = incidents.addObject().put("label", i.label()).put("value", i.value())
            .put("opened_at", i.openedAt().toString()).put("reason", i.reason());
        i.nodes().forEach(o.putArray("nodes")::add);
      });
    }
    return root.toPrettyString();
  }

  private static void sightings(ObjectNode out, Map<String, Sighting> sightings) {
    sightings.forEach((k, v) -> out.putObject(k).put("started", v.startedAt().toString()).put("seen", v.seenAt().toString()));
  }

  /** A node's sighting; a bare time is the form before sightings had a time seen (then both). */
  private static Map<String, Sighting> sightings(JsonNode in) {
    Map<String, Sighting> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = in.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      out.put(e.getKey(), v.isTextual() ? new Sighting(Instant.parse(v.asText()), Instant.parse(v.asText()))
          : new Sighting(Instant.parse(v.path("started").asText()), Instant.parse(v.path("seen").asText())));
    }
    return out;
  }

  private static void times(ArrayNode array, List<Instant> times) {
    times.forEach(t -> array.add(t.toString()));
  }

  static FleetState decode(String json) {
    try {
      JsonNode root = JSON.readTree(json);
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
      return new FleetState(breaker, pause, times(root.path("starts")), byPlaybook, sightings(root.path("firing")),
          sightings(root.path("acknowledged")), times(root.path("replacements")), incidents);
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
