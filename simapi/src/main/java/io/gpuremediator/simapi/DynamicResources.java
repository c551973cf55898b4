package io.gpuremediator.simapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the API server and its device taint eviction controller do with Dynamic Resource Allocation objects
 * ({@code resource.k8s.io/v1}), as Kubernetes documents them (recorded in {@code tests/real/dra}):
 * <ul>
 *   <li>ResourceSlices listed by the field selectors the API server supports for them: {@code spec.nodeName},
 *       {@code spec.driver}, {@code spec.pool.name} and {@code metadata.name} ({@code =}, {@code ==}, {@code !=});
 *       any other field is a 400, as there;</li>
 *   <li>a DeviceTaintRule's taint checked as the API server validates it (effect {@code None}, {@code NoSchedule} or
 *       {@code NoExecute}; key a label name; value a label value: else a 422) and stamped with {@code timeAdded} when it
 *       has none;</li>
 *   <li>the eviction controller: after each write of a rule, a claim or a slice, every pod that a ResourceClaim
 *       reserved for it ties to a device with a {@code NoExecute} taint (a DeviceTaintRule's whose selector matches the
 *       device's driver, pool and name, or the driver's own in the ResourceSlice) is deleted, unless the claim tolerates
 *       the taint (the allocation result's tolerations, else its request's). A toleration's {@code tolerationSeconds}
 *       is not emulated (it tolerates), nor are a rule's {@code deviceClassName} and CEL selectors (a 422 says so);</li>
 *   <li>the resource claim controller, in part: a pod gone (deleted, evicted) leaves {@code status.reservedFor} of its
 *       claims.</li>
 * </ul>
 */
final class DynamicResources {
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  static final String SLICES = "/apis/resource.k8s.io/v1/resourceslices";
  static final String RULES = "/apis/resource.k8s.io/v1/devicetaintrules";
  static final String CLAIMS = "/apis/resource.k8s.io/v1/resourceclaims";
  private static final Pattern RULE_WRITE = Pattern.compile("/apis/resource\\.k8s\\.io/v1/devicetaintrules(/[^/?]+)?(\\?.*)?");
  private static final Pattern DRA_WRITE = Pattern.compile(
      "/apis/resource\\.k8s\\.io/v1/(resourceslices|devicetaintrules|namespaces/[^/]+/resourceclaims)(/.*)?");
  private static final Pattern FIELD_SELECTOR = Pattern.compile("[?&]fieldSelector=([^&]*)");
  private static final Set<String> SLICE_FIELDS = Set.of("spec.nodeName", "spec.driver", "spec.pool.name", "metadata.name");
  private static final Set<String> EFFECTS = Set.of("None", "NoSchedule", "NoExecute");
  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)");
  private static final Pattern PREFIX = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private final Function<String, JsonNode> read;
  private final BiConsumer<String, String> deletePod;
  private final BiConsumer<String, String> put;
  private final Clock clock;

  /**
   * @param read reads a path of the store (a list or an object; null when absent)
   * @param deletePod deletes a pod (namespace, name) as the controller does, telling the pod watches
   * @param put stores an object (its path, its JSON) as the controllers write it
   */
  DynamicResources(Function<String, JsonNode> read, BiConsumer<String, String> deletePod, BiConsumer<String, String> put,
      Clock clock) {
    this.read = read;
    this.deletePod = deletePod;
    this.put = put;
    this.clock = clock;
  }

  /**
   * The resource claim controller after a pod is gone: the pod leaves {@code status.reservedFor} of every claim of its
   * namespace that was reserved for it (the claim stays allocated until its owner deletes it).
   */
  void podGone(String namespace, String pod) {
    JsonNode claims = read.apply("/apis/resource.k8s.io/v1/namespaces/" + namespace + "/resourceclaims");
    for (JsonNode claim : claims == null ? List.<JsonNode>of() : iterable(claims.path("items"))) {
      JsonNode reserved = claim.path("status").path("reservedFor");
      ArrayNode kept = JSON.createArrayNode();
      for (JsonNode user : iterable(reserved)) {
        if (!("pods".equals(user.path("resource").asText()) && pod.equals(user.path("name").asText()))) {
          kept.add(user);
        }
      }
      if (kept.size() != reserved.size()) {
        ObjectNode next = ((ObjectNode) claim).deepCopy();
        ((ObjectNode) next.with("status")).set("reservedFor", kept);
        put.accept("/apis/resource.k8s.io/v1/namespaces/" + namespace + "/resourceclaims/"
            + claim.path("metadata").path("name").asText(), next.toString());
      }
    }
  }

  /** Whether a request of this method to this path is a list of ResourceSlices by field. */
  static boolean slicesByField(String method, String path) {
    return method.equals("GET") && path.startsWith(SLICES + "?") && FIELD_SELECTOR.matcher(path).find();
  }

  /** Whether a write to this path changes what the eviction controller sees. */
  static boolean changesDevices(String method, String path) {
    return !method.equals("GET") && DRA_WRITE.matcher(path).matches();
  }

  /** Whether this write creates or replaces a DeviceTaintRule (not its status). */
  static boolean writesRule(String method, String path) {
    Matcher m = RULE_WRITE.matcher(path);
    return (method.equals("POST") || method.equals("PUT")) && m.matches();
  }

  /** The slices the list asks for, its field selector applied; a 400 message for a field the API server refuses. */
  Answer slices(String path) {
    Matcher m = FIELD_SELECTOR.matcher(path);
    m.find();
    List<String[]> terms = new ArrayList<>();
    for (String term : URLDecoder.decode(m.group(1), StandardCharsets.UTF_8).split(",")) {
      String[] t = term.split("!=|==|=", 2);
      boolean negated = term.contains("!=");
      if (t.length != 2 || !SLICE_FIELDS.contains(t[0].strip())) {
        return new Answer(400, "BadRequest", "field label not supported: " + t[0].strip(), null);
      }
      terms.add(new String[] {t[0].strip(), t[1].strip(), negated ? "!" : ""});
    }
    JsonNode all = read.apply(path.replaceAll("([?&])fieldSelector=[^&]*&?", "$1").replaceAll("[?&]$", ""));
    ObjectNode list = all == null ? null : JSON.createObjectNode();
    if (list != null) {
      all.fields().forEachRemaining(f -> list.set(f.getKey(), f.getValue())); // the list's own fields; its items below
    }
    ArrayNode kept = list == null ? null : list.putArray("items");
    for (JsonNode slice : all == null ? List.<JsonNode>of() : iterable(all.path("items"))) {
      boolean selected = true;
      for (String[] t : terms) {
        boolean equal = t[1].equals(field(slice, t[0]));
        selected &= t[2].isEmpty() == equal;
      }
      if (selected) {
        kept.add(slice);
      }
    }
    return new Answer(200, "", "", list);
  }

  /**
   * The rule as the API server stores it ({@code timeAdded} set when absent), or the 422 it answers: a rule whose taint
   * it refuses, or whose selector this emulation does not evaluate.
   */
  Answer rule(JsonNode body) {
    String name = body.path("metadata").path("name").asText("");
    String invalid = "DeviceTaintRule.resource.k8s.io \"" + name + "\" is invalid: ";
    JsonNode taint = body.path("spec").path("taint");
    String effect = taint.path("effect").asText("");
    if (!EFFECTS.contains(effect)) {
      return new Answer(422, "Invalid", invalid + "spec.taint.effect: " + (effect.isEmpty() ? "Required value"
          : "Unsupported value: \"" + effect + "\": supported values: \"NoExecute\", \"NoSchedule\", \"None\""), null);
    }
    String key = taint.path("key").asText("");
    if (!labelName(key)) {
      return new Answer(422, "Invalid", invalid + "spec.taint.key: Invalid value: \"" + key + "\": name part must consist of"
          + " alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", null);
    }
    String value = taint.path("value").asText("");
    if (!value.isEmpty() && !NAME.matcher(value).matches()) {
      return new Answer(422, "Invalid", invalid + "spec.taint.value: Invalid value: \"" + value + "\": a valid label must"
          + " be an empty string or consist of alphanumeric characters, '-', '_' or '.'", null);
    }
    JsonNode selector = body.path("spec").path("deviceSelector");
    if (selector.has("deviceClassName") || selector.has("selectors")) {
      return new Answer(422, "Invalid", "simapi: a DeviceTaintRule's deviceClassName and CEL selectors are not emulated",
          null);
    }
    ObjectNode stored = ((ObjectNode) body).deepCopy();
    if (!taint.hasNonNull("timeAdded")) {
      ((ObjectNode) stored.with("spec").with("taint")).put("timeAdded",
          Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString());
    }
    return new Answer(200, "", "", stored);
  }

  /** One pass of the device taint eviction controller: deletes every pod a NoExecute taint reaches through its claim. */
  void evict() {
    List<JsonNode> taints = new ArrayList<>(); // each {driver, pool, device, taint}; a rule's with its selector
    JsonNode rules = read.apply(RULES);
    for (JsonNode rule : rules == null ? List.<JsonNode>of() : iterable(rules.path("items"))) {
      JsonNode taint = rule.path("spec").path("taint");
      if (rule.path("spec").has("deviceSelector") && "NoExecute".equals(taint.path("effect").asText())) {
        ObjectNode t = ((ObjectNode) rule.path("spec").path("deviceSelector")).deepCopy();
        t.set("taint", taint);
        taints.add(t);
      }
    }
    JsonNode slices = read.apply(SLICES);
    for (JsonNode slice : slices == null ? List.<JsonNode>of() : iterable(slices.path("items"))) {
      for (JsonNode device : iterable(slice.path("spec").path("devices"))) {
        for (JsonNode taint : iterable(device.path("taints"))) {
          if ("NoExecute".equals(taint.path("effect").asText())) {
            ObjectNode t = JSON.createObjectNode().put("driver", slice.path("spec").path("driver").asText())
                .put("pool", slice.path("spec").path("pool").path("name").asText())
                .put("device", device.path("name").asText());
            t.set("taint", taint);
            taints.add(t);
          }
        }
      }
    }
    if (taints.isEmpty()) {
      return;
    }
    JsonNode claims = read.apply(CLAIMS);
    Map<String, String> doomed = new LinkedHashMap<>();
    for (JsonNode claim : claims == null ? List.<JsonNode>of() : iterable(claims.path("items"))) {
      if (reached(claim, taints)) {
        for (JsonNode user : iterable(claim.path("status").path("reservedFor"))) {
          if ("pods".equals(user.path("resource").asText())) {
            doomed.put(claim.path("metadata").path("namespace").asText() + "/" + user.path("name").asText(), "");
          }
        }
      }
    }
    doomed.keySet().forEach(pod -> deletePod.accept(pod.split("/", 2)[0], pod.split("/", 2)[1]));
  }

  /** Whether a NoExecute taint reaches a device allocated to the claim that the claim does not tolerate. */
  private static boolean reached(JsonNode claim, List<JsonNode> taints) {
    for (JsonNode result : iterable(claim.path("status").path("allocation").path("devices").path("results"))) {
      for (JsonNode t : taints) {
        if (selects(t, result) && !tolerated(t.path("taint"), tolerations(claim, result))) {
          return true;
        }
      }
    }
    return false;
  }

  /** A selector's driver, pool and device, each where set, name the result's device. */
  private static boolean selects(JsonNode selector, JsonNode result) {
    for (String f : List.of("driver", "pool", "device")) {
      if (selector.hasNonNull(f) && !selector.path(f).asText().equals(result.path(f).asText())) {
        return false;
      }
    }
    return true;
  }

  /** The result's tolerations (the allocation copies them), else its request's. */
  private static JsonNode tolerations(JsonNode claim, JsonNode result) {
    if (result.has("tolerations")) {
      return result.path("tolerations");
    }
    for (JsonNode request : iterable(claim.path("spec").path("devices").path("requests"))) {
      if (request.path("name").asText().equals(result.path("request").asText())) {
        return request.path("exactly").path("tolerations");
      }
    }
    return JSON.createArrayNode();
  }

  /** A device toleration (operator Equal by default, or Exists) of this taint, its effect empty or the taint's. */
  private static boolean tolerated(JsonNode taint, JsonNode tolerations) {
    for (JsonNode t : iterable(tolerations)) {
      String effect = t.path("effect").asText("");
      if (!effect.isEmpty() && !effect.equals(taint.path("effect").asText())) {
        continue;
      }
      String key = t.path("key").asText("");
      boolean exists = "Exists".equals(t.path("operator").asText("Equal"));
      if (exists ? key.isEmpty() || key.equals(taint.path("key").asText())
          : key.equals(taint.path("key").asText()) && t.path("value").asText("").equals(taint.path("value").asText(""))) {
        return true;
      }
    }
    return false;
  }

  private static boolean labelName(String key) {
    String[] parts = key.split("/", -1);
    if (parts.length > 2 || parts.length == 2 && (parts[0].length() > 253 || !PREFIX.matcher(parts[0]).matches())) {
      return false;
    }
    return NAME.matcher(parts[parts.length - 1]).matches();
  }

  private static String field(JsonNode o, String dotted) {
    JsonNode at = o;
    for (String part : dotted.split("\\.")) {
      at = at.path(part);
    }
    return at.asText("");
  }

  private static Iterable<JsonNode> iterable(JsonNode array) {
    return array.isArray() ? array : List.of();
  }

  /** An answer: its code, and the Status reason and message of a refusal or the object of a success. */
  record Answer(int code, String reason, String message, JsonNode object) {
    boolean ok() {
      return code == 200;
    }

    Optional<JsonNode> stored() {
      return Optional.ofNullable(object);
    }
  }
}
