package io.gpuremediator.action;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The shell scripts the jar ships beside this package's classes, run by default Jobs as {@code sh -c SCRIPT}. */
final class ShippedScripts {
  private ShippedScripts() {}

  static String read(String name) {
    try (InputStream in = ShippedScripts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the jar holds no " + name + " beside " + ShippedScripts.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
