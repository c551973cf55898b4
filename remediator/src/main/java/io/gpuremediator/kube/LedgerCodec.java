package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.NodeLedger.Claim;
import io.gpuremediator.state.NodeLedger.Episode;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;

/** The JSON form of a node ledger, as stored in the {@code gpu-remediator.io/state} annotation. */
final class LedgerCodec {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int VERSION = 1;

  private LedgerCodec() {}

  /** Encodes a ledger compactly, with sorted keys. */
  static String encode(NodeLedger ledger) {
    ObjectNode root = JSON.createObjectNode();
    root.put("v", VERSION);
    ObjectNode claims = root.putObject("claims");
    ledger.claims().forEach((key, claim) -> {
      ObjectNode c = claims.putObject(key);
      ArrayNode holders = c.putArray("holders");
      claim.holders().forEach(holders::add);
      if (claim.preexisting()) {
        c.put("preexisting", true);
      }
    });
    ObjectNode episodes = root.putObject("episodes");
    ledger.episodes().forEach((fp, e) -> {
      ObjectNode o = episodes.putObject(fp);
      o.put("alertname", e.alertname());
      o.put("playbook", e.playbook());
      o.put("starts_at", e.startsAt().toString());
      o.put("since", e.since().toString());
    });
    ArrayNode history = root.putArray("history");
    for (NodeLedger.PastEpisode p : ledger.history()) {
      history.addObject().put("fingerprint", p.fingerprint()).put("starts_at", p.startsAt().toString())
          .put("playbook", p.playbook()).put("since", p.since().toString()).put("released_at", p.releasedAt().toString());
    }
    return root.toString();
  }

  /** Decodes a ledger; throws {@link IllegalArgumentException} naming what is wrong. */
  static NodeLedger decode(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not JSON");
    }
    if (root == null || !root.isObject() || root.path("v").asInt() != VERSION) {
      throw new IllegalArgumentException("not a version " + VERSION + " ledger");
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
    Map<String, Episode> episodes = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("episodes").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode o = e.getValue();
      try {
        episodes.put(e.getKey(), new Episode(e.getKey(), o.path("alertname").asText(), o.path("playbook").asText(),
            Instant.parse(o.path("starts_at").asText()), Instant.parse(o.path("since").asText())));
      } catch (java.time.format.DateTimeParseException ex) {
        throw new IllegalArgumentException("episode " + e.getKey() + " has a bad time");
      }
    }
    java.util.List<NodeLedger.PastEpisode> history = new java.util.ArrayList<>();
    for (JsonNode p : root.path("history")) {
      try {
        history.add(new NodeLedger.PastEpisode(p.path("fingerprint").asText(), Instant.parse(p.path("starts_at").asText()),
            p.path("playbook").asText(), Instant.parse(p.path("since").asText()), Instant.parse(p.path("released_at").asText())));
      } catch (java.time.format.DateTimeParseException ex) {
        throw new IllegalArgumentException("a past episode has a bad time");
      }
    }
    return NodeLedger.of(claims, episodes, history);
  }
}
