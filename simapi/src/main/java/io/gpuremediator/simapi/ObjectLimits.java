package io.gpuremediator.simapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The size limits the API server's validation puts on the objects the service writes, with its own words: a ConfigMap's
 * {@code data} and {@code binaryData} together at most 1 MiB ({@code ValidateConfigMap}: {@code totalSize >
 * core.MaxSecretSize}, binaryData counted decoded), and an object's annotations, keys and values together, at most 256
 * KiB (apimachinery's {@code ValidateAnnotationsSize}, {@code TotalAnnotationSizeLimitB}). Either is a 422 {@code
 * Invalid}: "ConfigMap "x" is invalid: []: Too long: must have at most 1048576 bytes", "Node "x" is invalid:
 * metadata.annotations: Too long: must have at most 262144 bytes", as real clusters answer them (tests/real/SOURCES.md).
 * Checked on whole-object writes (create, update).
 */
final class ObjectLimits {
  static final int CONFIGMAP_BYTES = 1024 * 1024;
  static final int ANNOTATION_BYTES = 256 * 1024;
  private static final Pattern CONFIGMAP = Pattern.compile("/api/v1/namespaces/[^/]+/configmaps(/[^/?]+)?(\\?.*)?");
  private static final Pattern NODE = Pattern.compile("/api/v1/nodes(/[^/?]+)?(\\?.*)?");

  private ObjectLimits() {}

  /** Whether the request writes a whole ConfigMap or Node, the objects whose limits are checked. */
  static boolean checked(String method, String path) {
    return (method.equals("POST") || method.equals("PUT")) && (CONFIGMAP.matcher(path).matches()
        || NODE.matcher(path).matches());
  }

  /** The 422's message when {@code object} breaks a limit. */
  static Optional<String> broken(JsonNode object) {
    String kind = object.path("kind").asText(object.has("data") || object.has("binaryData") ? "ConfigMap" : "Node");
    String name = object.path("metadata").path("name").asText();
    long annotations = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = object.path("metadata").path("annotations").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      annotations += bytes(e.getKey()) + bytes(e.getValue().asText());
    }
    if (annotations > ANNOTATION_BYTES) {
      return Optional.of(kind + " \"" + name + "\" is invalid: metadata.annotations: Too long: must have at most "
          + ANNOTATION_BYTES + " bytes");
    }
    if (kind.equals("ConfigMap")) {
      long total = 0;
      for (Iterator<JsonNode> it = object.path("data").elements(); it.hasNext(); ) {
        total += bytes(it.next().asText());
      }
      for (Iterator<JsonNode> it = object.path("binaryData").elements(); it.hasNext(); ) {
        total += Base64.getDecoder().decode(it.next().asText()).length;
      }
      if (total > CONFIGMAP_BYTES) {
        return Optional.of("ConfigMap \"" + name + "\" is invalid: []: Too long: must have at most " + CONFIGMAP_BYTES
            + " bytes");
      }
    }
    return Optional.empty();
  }

  private static long bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
