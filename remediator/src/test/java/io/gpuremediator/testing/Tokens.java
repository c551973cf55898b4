package io.gpuremediator.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The tokens of a test's service: the webhook's in {@code token} and the operator's in {@code operator-token}, beside
 * the config, as {@link #AUTH} names them. Each role has its own token, as the service requires.
 */
public final class Tokens {
  /** The {@code auth} line of a test's config. */
  public static final String AUTH = "auth: {webhook_token_file: token, operator_token_file: operator-token}";

  private Tokens() {}

  /** Writes the webhook token {@code webhook} and the operator token {@link #operator} of it into {@code dir}. */
  public static void write(Path dir, String webhook) throws IOException {
    Files.writeString(dir.resolve("token"), webhook);
    Files.writeString(dir.resolve("operator-token"), operator(webhook) + "\n");
  }

  /** The operator token that goes with the webhook token {@code webhook}. */
  public static String operator(String webhook) {
    return "operator-" + webhook.strip();
  }
}
