package io.gpuremediator.config;

import io.gpuremediator.config.RemediatorConfig.Auth;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Decodes {@code auth}: one token a role ({@code webhook_token_file}, {@code operator_token_file}, {@code
 * read_token_file}) and the key the node ledgers are signed with ({@code ledger_key_file}), or {@code insecure_no_auth:
 * true}; today's single {@code bearer_token_file} is refused, naming the keys that replace it.
 */
final class AuthConfig {
  private AuthConfig() {}

  static Auth decode(MapReader m, Path base, Problems problems) {
    Optional<MapReader> a = m.map("auth", "auth");
    if (a.isEmpty()) {
      if (!m.has("auth")) {
        problems.add(m.node(), "missing required key \"auth\" in config (webhook_token_file and operator_token_file, or"
            + " insecure_no_auth: true)");
      }
      return new Auth(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), false);
    }
    MapReader r = a.get();
    if (r.has("bearer_token_file")) {
      problems.add(r.at("bearer_token_file"), "\"bearer_token_file\" in auth is replaced by three roles, each its own"
          + " token: webhook_token_file (POST /api/v1/alerts only: Alertmanager's), operator_token_file (pause, resume,"
          + " breaker and domain resets, release, retry, and reads) and read_token_file (reads only, optional); and"
          + " ledger_key_file, the key every node ledger is signed with");
      r.take("bearer_token_file");
    }
    Optional<Path> webhook = r.string("webhook_token_file").map(base::resolve);
    Optional<Path> operator = r.string("operator_token_file").map(base::resolve);
    Optional<Path> read = r.string("read_token_file").map(base::resolve);
    Optional<Path> ledgerKey = r.string("ledger_key_file").map(base::resolve);
    boolean insecure = r.bool("insecure_no_auth").orElse(false);
    r.finish();
    if (insecure && (webhook.isPresent() || operator.isPresent() || read.isPresent())) {
      problems.add(r.node(), "auth sets tokens and insecure_no_auth: true; with insecure_no_auth every request is let in,"
          + " so set one or the other");
    } else if (!insecure && !r.has("bearer_token_file") && (webhook.isEmpty() || operator.isEmpty())) {
      problems.add(r.node(), "auth needs webhook_token_file and operator_token_file (or insecure_no_auth: true)");
    } else if (!insecure && !r.has("bearer_token_file") && ledgerKey.isEmpty()) {
      problems.add(r.node(), "auth needs ledger_key_file: the key (32 bytes or more, from a Secret) that every node ledger"
          + " is signed with, so that a ledger a node's kubelet writes is never acted on");
    }
    return new Auth(webhook, operator, read, ledgerKey, insecure);
  }
}
