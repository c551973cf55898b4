package io.gpuremediator.http;

import static io.gpuremediator.http.WebhookValues.count;
import static io.gpuremediator.http.WebhookValues.isFingerprint;
import static io.gpuremediator.http.WebhookValues.optionalString;
import static io.gpuremediator.http.WebhookValues.printable;
import static io.gpuremediator.http.WebhookValues.require;
import static io.gpuremediator.http.WebhookValues.status;
import static io.gpuremediator.http.WebhookValues.string;
import static io.gpuremediator.http.WebhookValues.stringMap;
import static io.gpuremediator.http.WebhookValues.time;

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
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
}
