package io.gpuremediator.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The tokens of a test's service: the webhook's in {@code token} and the operator's in {@code operator-token}, beside
 * the config, as {@link #AUTH} names them, and the key its ledgers are signed with in {@code ledger-key}. Each role has
 * its own token, as the service requires.
 */
public final class Tokens {
  /** The {@code auth} line of a test's config. */
  public static final String AUTH = "auth: {webhook_token_file: token, operator_token_file: operator-token,"
      + " ledger_key_file: ledger-key}";
  /** The same, with a read-only token in {@code read-token} ({@link #writeReader}). */
  public static final String AUTH_WITH_READER = "auth: {webhook_token_file: token, operator_token_file: operator-token,"
      + " read_token_file: read-token, ledger_key_file: ledger-key}";
  /** The key every test service signs its ledgers with ({@code ledger-key}). */
  public static final String LEDGER_KEY = "test-ledger-key-0123456789abcdef-0123456789abcdef";

  private Tokens() {}

  /** Writes the webhook token {@code webhook}, its {@link #operator} token and the ledger key into {@code dir}. */
  public static void write(Path dir, String webhook) throws IOException {
    Files.writeString(dir.resolve("token"), webhook);
    Files.writeString(dir.resolve("operator-token"), operator(webhook) + "\n");
    Files.writeString(dir.resolve("ledger-key"), LEDGER_KEY + "\n");
  }

  /** Writes the read-only token {@code reader} into {@code dir}, as {@link #AUTH_WITH_READER} names it. */
  public static void writeReader(Path dir, String reader) throws IOException {
    Files.writeString(dir.resolve("read-token"), reader);
  }

  /** The operator token that goes with the webhook token {@code webhook}. */
  public static String operator(String webhook) {
    return "operator-" + webhook.strip();
  }
}
