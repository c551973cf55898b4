package io.gpuremediator.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decodes an Alertmanager webhook body into a {@link WebhookMessage} in one streaming pass. Unknown
 * fields are skipped (newer Alertmanagers add some); known fields are checked strictly. Nesting deeper
 * than {@value #MAX_DEPTH} is refused before it can cost anything, and a key repeated in one object is
 * an error (two {@code node} labels must not let a reader pick either). Thread-safe.
 */
public final class WebhookDecoder {
  /** The deepest nesting accepted; a real webhook is 3 deep. */
  public static final int MAX_DEPTH = 16;
  private static final Instant ZERO_TIME = Instant.parse("0001-01-01T00:00:00Z");

  // Duplicate keys are detected where they matter (known fields, labels, annotations) by the decoder
  // itself: Jackson's STRICT_DUPLICATE_DETECTION would allocate a set for every object.
  private final JsonFactory factory = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).maxNameLength(WebhookLimits.MAX_NAME).build())
      .build();

  /** Decodes a body. */
  public WebhookMessage decode(byte[] body) throws WebhookFormatException {
    try (JsonParser p = factory.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new WebhookFormatException("body: must be a JSON object");
      }
      WebhookMessage message = message(p);
      if (p.nextToken() != null) {
        throw new WebhookFormatException("body: unexpected content after the JSON object");
      }
      return message;
    } catch (StreamConstraintsException e) {
      throw new WebhookFormatException(WebhookLimits.exceeded(e, MAX_DEPTH));
    } catch (JsonParseException e) {
      throw new WebhookFormatException("body: malformed JSON at line " + e.getLocation().getLineNr()
          + ", column " + e.getLocation().getColumnNr());
    } catch (IOException e) {
      throw new WebhookFormatException("body: unreadable JSON");
    }
  }

  private WebhookMessage message(JsonParser p) throws IOException, WebhookFormatException {
    Map<String, Instant> times = new HashMap<>();
    Fields seen = new Fields("");
    String version = null;
    AlertStatus status = null;
    String receiver = "";
    String groupKey = "";
    int truncated = 0;
    Map<String, String> groupLabels = Map.of();
    List<Alert> alerts = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      seen.once(field);
      switch (field) {
        case "version" -> version = string(p, "version");
        case "status" -> status = status(p, "status");
        case "receiver" -> receiver = optionalString(p, "receiver");
        case "groupKey" -> groupKey = optionalString(p, "groupKey");
        case "truncatedAlerts" -> truncated = count(p, "truncatedAlerts");
        case "groupLabels" -> groupLabels = stringMap(p, "groupLabels", false);
        case "alerts" -> alerts = alerts(p, times);
        default -> p.skipChildren();
      }
    }
    if (version == null) {
      throw new WebhookFormatException("version: required");
    }
    if (!version.equals("4")) {
      throw new WebhookFormatException("version: \"" + printable(version) + "\" is not supported (only \"4\")");
    }
    if (status == null) {
      throw new WebhookFormatException("status: required");
    }
    if (alerts == null) {
      throw new WebhookFormatException("alerts: required");
    }
    return new WebhookMessage(receiver, status, groupKey, truncated, groupLabels, alerts);
  }

  private List<Alert> alerts(JsonParser p, Map<String, Instant> times) throws IOException, WebhookFormatException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      throw new WebhookFormatException("alerts: must be an array");
    }
    List<Alert> alerts = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      alerts.add(alert(p, "alerts[" + alerts.size() + "]", times));
    }
    return alerts;
  }

  private Alert alert(JsonParser p, String at, Map<String, Instant> times) throws IOException, WebhookFormatException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      throw new WebhookFormatException(at + ": must be an object");
    }
    Fields seen = new Fields(at + ".");
    AlertStatus status = null;
    Map<String, String> labels = null;
    Map<String, String> annotations = Map.of();
    Instant startsAt = null;
    Optional<Instant> endsAt = Optional.empty();
    String generatorUrl = "";
    String fingerprint = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      seen.once(field);
      switch (field) {
        case "status" -> status = status(p, at + ".status");
        case "labels" -> labels = stringMap(p, at + ".labels", true);
        case "annotations" -> annotations = stringMap(p, at + ".annotations", false);
        case "startsAt" -> startsAt = time(p, at + ".startsAt", times);
        case "endsAt" -> endsAt = p.currentToken() == JsonToken.VALUE_NULL ? Optional.empty()
            : Optional.of(time(p, at + ".endsAt", times)).filter(t -> !t.equals(ZERO_TIME));
        case "generatorURL" -> generatorUrl = optionalString(p, at + ".generatorURL");
        case "fingerprint" -> fingerprint = string(p, at + ".fingerprint");
        default -> p.skipChildren();
      }
    }
    require(status, at + ".status");
    require(labels, at + ".labels");
    require(startsAt, at + ".startsAt");
    require(fingerprint, at + ".fingerprint");
    if (labels.getOrDefault("alertname", "").isEmpty()) {
      throw new WebhookFormatException(at + ".labels.alertname: required");
    }
    if (!isFingerprint(fingerprint)) {
      throw new WebhookFormatException(at + ".fingerprint: \"" + printable(fingerprint) + "\" is not a hex fingerprint");
    }
    return new Alert(status, labels, annotations, startsAt, endsAt, generatorUrl, fingerprint);
  }

  private static void require(Object value, String path) throws WebhookFormatException {
    if (value == null) {
      throw new WebhookFormatException(path + ": required");
    }
  }

  private static String string(JsonParser p, String path) throws IOException, WebhookFormatException {
    if (p.currentToken() != JsonToken.VALUE_STRING) {
      throw new WebhookFormatException(path + ": must be a string");
    }
    return p.getText();
  }

  private static String optionalString(JsonParser p, String path) throws IOException, WebhookFormatException {
    return p.currentToken() == JsonToken.VALUE_NULL ? "" : string(p, path);
  }

  private static int count(JsonParser p, String path) throws IOException, WebhookFormatException {
    if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || p.getLongValue() < 0 || p.getLongValue() > Integer.MAX_VALUE) {
      throw new WebhookFormatException(path + ": must be a non-negative integer");
    }
    return p.getIntValue();
  }

  private static AlertStatus status(JsonParser p, String path) throws IOException, WebhookFormatException {
    String s = string(p, path);
    return AlertStatus.fromCode(s).orElseThrow(() ->
        new WebhookFormatException(path + ": \"" + printable(s) + "\" is not firing or resolved"));
  }

  /** A timestamp; the alerts of one webhook mostly share their times, so each distinct text is parsed once. */
  private static Instant time(JsonParser p, String path, Map<String, Instant> times) throws IOException, WebhookFormatException {
    String s = string(p, path);
    Instant known = times.get(s);
    if (known != null) {
      return known;
    }
    Instant parsed = Rfc3339.parse(s).orElseThrow(() ->
        new WebhookFormatException(path + ": \"" + printable(s) + "\" is not an RFC 3339 time"));
    if (times.size() < 64) {
      times.put(s, parsed);
    }
    return parsed;
  }

  /**
   * An object of strings, built straight into an immutable map (the Alert keeps it without copying);
   * a key given twice is refused.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, String> stringMap(JsonParser p, String path, boolean labelNames)
      throws IOException, WebhookFormatException {
    if (p.currentToken() == JsonToken.VALUE_NULL && !labelNames) {
      return Map.of();
    }
    if (p.currentToken() != JsonToken.START_OBJECT) {
      throw new WebhookFormatException(path + ": must be an object of strings");
    }
    List<Map.Entry<String, String>> entries = new ArrayList<>(16);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String key = p.currentName();
      p.nextToken();
      if (labelNames && !isLabelName(key)) {
        throw new WebhookFormatException(path + ": \"" + printable(key) + "\" is not a label name");
      }
      if (p.currentToken() != JsonToken.VALUE_STRING) {
        throw new WebhookFormatException(path + "." + key + ": must be a string");
      }
      entries.add(Map.entry(key, p.getText()));
    }
    try {
      return Map.ofEntries(entries.toArray(new Map.Entry[0]));
    } catch (IllegalArgumentException duplicate) {
      Set<String> seen = new HashSet<>();
      String twice = entries.stream().map(Map.Entry::getKey).filter(k -> !seen.add(k)).findFirst().orElse("");
      throw new WebhookFormatException(path + ": \"" + printable(twice) + "\" appears twice");
    }
  }

  /**
   * Whether the text is a label name Alertmanager accepts: since Prometheus 3 and Alertmanager 0.28 any non-empty
   * UTF-8 text ({@code host.name}, {@code k8s.cluster.name}, {@code foo🙂}), not only {@code [a-zA-Z_][a-zA-Z0-9_]*}.
   * Alertmanager never retries a 4xx, so refusing a name it accepted would stop every remediation in the body. Text
   * that is not UTF-8 never gets here: the JSON parser refuses it. What a label renders into a Kubernetes field is
   * validated there, whatever its name.
   */
  static boolean isLabelName(String s) {
    return !s.isEmpty();
  }

  private static boolean isFingerprint(String s) {
    if (s.isEmpty() || s.length() > 64) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /** Remembers the known fields of one object, so that a repeated one is refused rather than silently overwritten. */
  private static final class Fields {
    private final String prefix;
    private int seen; // a bit per known field: one object per alert, no set

    Fields(String prefix) {
      this.prefix = prefix;
    }

    void once(String field) throws WebhookFormatException {
      Integer bit = KNOWN.get(field);
      if (bit != null) {
        if ((seen & (1 << bit)) != 0) {
          throw new WebhookFormatException(prefix + field + ": appears twice");
        }
        seen |= 1 << bit;
      }
    }
  }

  private static final Map<String, Integer> KNOWN = known("version", "status", "receiver", "groupKey",
      "truncatedAlerts", "groupLabels", "alerts", "labels", "annotations", "startsAt", "endsAt", "generatorURL",
      "fingerprint");

  private static Map<String, Integer> known(String... fields) {
    Map<String, Integer> bits = new HashMap<>();
    for (int i = 0; i < fields.length; i++) {
      bits.put(fields[i], i);
    }
    return Map.copyOf(bits);
  }

  /** The value as it may be echoed in an error: control characters escaped, long values cut. */
  static String printable(String value) {
    String cut = value.length() > 64 ? value.substring(0, 64) + "..." : value;
    StringBuilder b = new StringBuilder();
    cut.codePoints().forEach(c -> {
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
        b.append(String.format("\\u%04x", c));
      } else {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }
}
