package io.gpuremediator.testing;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Node ledger annotations as a test's service signs them with {@link Tokens#LEDGER_KEY}, computed here on their own
 * (HMAC-SHA256 over the node's name, a newline and the ledger's text), so a test can seed a ledger of ours or show that
 * one written by a node's kubelet is refused.
 */
public final class SignedLedgers {
  private SignedLedgers() {}

  /** The annotation a service with the test key writes for ledger {@code json} on node {@code node}. */
  public static String sealed(String node, String json) {
    return sealed(Tokens.LEDGER_KEY, node, json);
  }

  /** The annotation signed with {@code key}. */
  public static String sealed(String key, String node, String json) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      byte[] sig = mac.doFinal((node + "\n" + json).getBytes(StandardCharsets.UTF_8));
      return "{\"v\":2,\"hmac\":\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(sig) + "\",\"ledger\":" + json
          + "}";
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The ledger's text inside a signed annotation (the annotation itself when unsigned). */
  public static String ledger(String annotation) {
    String head = "\",\"ledger\":";
    int at = annotation.startsWith("{\"v\":2,") ? annotation.indexOf(head) : -1;
    return at < 0 ? annotation : annotation.substring(at + head.length(), annotation.length() - 1);
  }
}
