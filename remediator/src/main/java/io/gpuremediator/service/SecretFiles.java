package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.http.TokenRoles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The secrets the service reads from files at start: its tokens, and the URLs of its receivers. */
final class SecretFiles {
  private static final Logger LOGGER = LoggerFactory.getLogger(SecretFiles.class);
  private static final int MIN_TOKEN_CHARS = 16;
  private static final int MIN_LEDGER_KEY_BYTES = 32;
  /** The key of insecure_no_auth without a ledger_key_file: published here, so it protects nothing. */
  private static final String INSECURE_LEDGER_KEY = "gpu-remediator: published ledger key of insecure_no_auth";

  private SecretFiles() {}

  /**
   * The token of each role, unless {@code insecure_no_auth} turns auth off (which is logged); two roles holding one
   * token are refused (a webhook token that is also the operator's is what the roles exist to prevent).
   */
  static Optional<Map<TokenRoles.Role, String>> roleTokens(RemediatorConfig config) throws StartupException {
    RemediatorConfig.Auth auth = config.auth();
    if (auth.insecureNoAuth()) {
      LOGGER.warn("auth disabled by insecure_no_auth: true; anyone who reaches the port can drive remediations");
      return Optional.empty();
    }
    Map<TokenRoles.Role, String> tokens = new EnumMap<>(TokenRoles.Role.class);
    tokens.put(TokenRoles.Role.WEBHOOK, token(auth.webhookTokenFile().orElseThrow(), "webhook_token_file"));
    tokens.put(TokenRoles.Role.OPERATOR, token(auth.operatorTokenFile().orElseThrow(), "operator_token_file"));
    if (auth.readTokenFile().isPresent()) {
      tokens.put(TokenRoles.Role.READ, token(auth.readTokenFile().get(), "read_token_file"));
    }
    if (new HashSet<>(tokens.values()).size() < tokens.size()) {
      throw new StartupException("two of webhook_token_file, operator_token_file and read_token_file hold the same token:"
          + " each role needs its own");
    }
    return Optional.of(tokens);
  }

  /**
   * The key the node ledgers are signed with: {@code ledger_key_file}'s, at least 32 bytes; with insecure_no_auth and no
   * file, a published one (logged), as much a test setting as no tokens are.
   */
  static byte[] ledgerKey(RemediatorConfig config) throws StartupException {
    Optional<Path> file = config.auth().ledgerKeyFile();
    if (file.isEmpty()) {
      LOGGER.warn("no auth.ledger_key_file: ledgers are signed with a published key, so anyone who can write a Node can"
          + " forge one; set ledger_key_file outside tests");
      return INSECURE_LEDGER_KEY.getBytes(StandardCharsets.UTF_8);
    }
    byte[] key = secret(file.get(), "ledger_key_file").getBytes(StandardCharsets.UTF_8);
    if (key.length < MIN_LEDGER_KEY_BYTES) {
      throw new StartupException("the key in ledger_key_file " + file.get() + " is shorter than " + MIN_LEDGER_KEY_BYTES
          + " bytes (openssl rand -base64 48 makes one)");
    }
    return key;
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
