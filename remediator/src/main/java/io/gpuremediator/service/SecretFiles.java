package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The secrets the service reads from files at start: its tokens, and the URLs of its receivers. */
final class SecretFiles {
  private static final Logger LOGGER = LoggerFactory.getLogger(SecretFiles.class);
  private static final int MIN_TOKEN_CHARS = 16;

  private SecretFiles() {}

  /** The bearer token, unless {@code insecure_no_auth} turns auth off (which is logged). */
  static Optional<String> bearerToken(RemediatorConfig config) throws StartupException {
    if (config.auth().insecureNoAuth()) {
      LOGGER.warn("auth disabled by insecure_no_auth: true; anyone who reaches the port can drive remediations");
      return Optional.empty();
    }
    return Optional.of(token(config.auth().bearerTokenFile().orElseThrow(), "bearer_token_file"));
  }

  /** The read-only token, when {@code auth.read_token_file} is set. */
  static Optional<String> readOnlyToken(RemediatorConfig config) throws StartupException {
    return config.auth().readTokenFile().isEmpty() ? Optional.empty()
        : Optional.of(token(config.auth().readTokenFile().get(), "read_token_file"));
  }

  /** A token from its file (the config key named in errors), at least 16 characters. */
  static String token(Path file, String key) throws StartupException {
    String token = secret(file, key);
    if (token.length() < MIN_TOKEN_CHARS) {
      throw new StartupException("the token in " + key + " " + file + " is shorter than 16 characters");
    }
    return token;
  }

  /** A secret (a URL) from its file, stripped. */
  static String secret(Path file, String key) throws StartupException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new StartupException("cannot read " + key + " " + file + ": " + e.getMessage());
    }
  }
}
