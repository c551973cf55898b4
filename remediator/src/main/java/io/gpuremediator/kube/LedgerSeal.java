package io.gpuremediator.kube;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature on a node's ledger annotation: {@code {"v":2,"hmac":"<HMAC-SHA256>","ledger":<the ledger>}}, the HMAC
 * taken with the service's key over the node's name and the ledger's text exactly as stored, so a ledger copied from
 * another node, or edited by a byte, does not verify. A node's kubelet can write its own annotations; it cannot sign.
 */
final class LedgerSeal {
  static final String ALGORITHM = "HmacSHA256";
  private static final String HEAD = "{\"v\":2,\"hmac\":\"";
  private static final String MIDDLE = "\",\"ledger\":";
  /** Unpadded base64url of a 32-byte HMAC. */
  private static final int MAC_CHARS = 43;

  /** What an annotation holds: the ledger's text, and whether it was signed (verified) or written unsigned. */
  record Opened(String json, boolean signed) {}

  /** An annotation in the signed form whose signature does not verify. */
  static final class Untrusted extends Exception {
    Untrusted(String message) {
      super(message);
    }
  }

  private final Optional<SecretKeySpec> key;

  private LedgerSeal(Optional<SecretKeySpec> key) {
    this.key = key;
  }

  /** Signs with {@code key} and verifies each signed ledger read. */
  static LedgerSeal withKey(byte[] key) {
    if (key.length == 0) {
      throw new IllegalArgumentException("the ledger key is empty");
    }
    return new LedgerSeal(Optional.of(new SecretKeySpec(key.clone(), ALGORITHM)));
  }

  /** Reads ledgers without checking a signature and signs nothing: for nodes read from files offline, never acted on. */
  static LedgerSeal offline() {
    return new LedgerSeal(Optional.empty());
  }

  /** The annotation's text for {@code json}, the ledger of node {@code node}. */
  String sealed(String node, String json) {
    return HEAD + mac(node, json) + MIDDLE + json + "}";
  }

  /**
   * The ledger's text in an annotation: a signed one once its signature verifies, else anything else as an unsigned
   * ledger (the caller decodes it, and decides whether to trust it).
   */
  Opened open(String node, String stored) throws Untrusted {
    if (!stored.startsWith(HEAD)) {
      return new Opened(stored, false);
    }
    int body = HEAD.length() + MAC_CHARS + MIDDLE.length();
    if (stored.length() <= body || !stored.startsWith(MIDDLE, HEAD.length() + MAC_CHARS) || !stored.endsWith("}")) {
      throw new Untrusted("is signed in a form this service does not write");
    }
    String json = stored.substring(body, stored.length() - 1);
    if (key.isPresent() && !MessageDigest.isEqual(mac(node, json).getBytes(StandardCharsets.US_ASCII),
        stored.substring(HEAD.length(), HEAD.length() + MAC_CHARS).getBytes(StandardCharsets.US_ASCII))) {
      throw new Untrusted("carries a signature that does not verify with this service's ledger key for this node");
    }
    return new Opened(json, true);
  }

  private String mac(String node, String json) {
    if (key.isEmpty()) {
      throw new IllegalStateException("an offline ledger seal signs nothing");
    }
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key.get());
      mac.update(node.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) '\n');
      return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(json.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HMAC-SHA256 is part of every Java runtime", e);
    }
  }
}
