package io.gpuremediator.kube;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/** A map of strings as a JSON object, written and read by the ledger's codec. */
final class JsonStrings {
  private JsonStrings() {}

  /** Writes the map as an object named {@code name}; left out when empty. */
  static void strings(JsonGenerator g, String name, Map<String, String> values) throws IOException {
    if (values.isEmpty()) {
      return;
    }
    g.writeObjectFieldStart(name);
    for (Map.Entry<String, String> e : values.entrySet()) {
      g.writeStringField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
  }

  /** Reads an object's fields as strings; none when it is not an object. */
  static Map<String, String> strings(JsonNode o) {
    Map<String, String> out = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }
}
