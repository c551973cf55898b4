package io.gpuremediator.dcgmsim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The fields of dcgm-exporter's counters CSV: the simulator serves exactly these, so it never keeps its own copy. */
record CountersCsv(List<Field> fields) {
  /** One CSV row: the DCGM field name (the metric name), its Prometheus type and its help text. */
  record Field(String name, String type, String help) {
    boolean isLabel() {
      return type.equals("label");
    }
  }

  CountersCsv {
    fields = List.copyOf(fields);
  }

  static CountersCsv read(Path csv) throws IOException {
    List<Field> fields = new ArrayList<>();
    int line = 0;
    for (String raw : Files.readAllLines(csv)) {
      line++;
      String text = raw.strip();
      if (text.isEmpty() || text.startsWith("#")) {
        continue;
      }
      String[] parts = text.split(",", 3);
      if (parts.length != 3 || !List.of("gauge", "counter", "label").contains(parts[1].strip())) {
        throw new IOException(csv + ":" + line + ": not a `FIELD, gauge|counter|label, help` row");
      }
      fields.add(new Field(parts[0].strip(), parts[1].strip(), parts[2].strip()));
    }
    return new CountersCsv(fields);
  }

  /** The metric fields (not label rows). */
  List<Field> metrics() {
    return fields.stream().filter(f -> !f.isLabel()).toList();
  }

  /** Whether the CSV enables this field. */
  boolean enables(String name) {
    return fields.stream().anyMatch(f -> f.name().equals(name));
  }
}
