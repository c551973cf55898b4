package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.testing.SignedLedgers;
import io.gpuremediator.testing.Tokens;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A ledger is ours only as this service signed it, for the node it is on, byte for byte. */
class LedgerSealTest {
  private static final String LEDGER = "{\"v\":1,\"claims\":{},\"episodes\":{}}";
  private final LedgerSeal seal = LedgerSeal.withKey(Tokens.LEDGER_KEY.getBytes(StandardCharsets.UTF_8));

  @Test
  void aSignedLedgerOpensToItsTextAndIsSignedAsAnHmacOverTheNodeAndTheText() throws Exception {
    String sealed = seal.sealed("gpu-node-1", LEDGER);
    assertThat(sealed).isEqualTo(SignedLedgers.sealed("gpu-node-1", LEDGER)).startsWith("{\"v\":2,\"hmac\":\"");
    assertThat(seal.open("gpu-node-1", sealed)).isEqualTo(new LedgerSeal.Opened(LEDGER, true));
  }

  @Test
  void aLedgerEditedCopiedToAnotherNodeOrSignedWithAnotherKeyDoesNotVerify() {
    String sealed = seal.sealed("gpu-node-1", LEDGER);
    for (String forged : new String[] {sealed.replace("\"episodes\":{}", "\"episodes\":{} "),
        SignedLedgers.sealed("another-key-0123456789abcdef-0123456789", "gpu-node-1", LEDGER)}) {
      assertThatThrownBy(() -> seal.open("gpu-node-1", forged)).isInstanceOf(LedgerSeal.Untrusted.class)
          .hasMessage("carries a signature that does not verify with this service's ledger key for this node");
    }
    assertThatThrownBy(() -> seal.open("gpu-node-2", sealed)).isInstanceOf(LedgerSeal.Untrusted.class);
    assertThatThrownBy(() -> seal.open("gpu-node-1", "{\"v\":2,\"hmac\":\"short\",\"ledger\":{}}"))
        .isInstanceOf(LedgerSeal.Untrusted.class).hasMessage("is signed in a form this service does not write");
  }

  @Test
  void anUnsignedLedgerOpensAsUnsignedForTheCallerToTrustOrNot() throws Exception {
    assertThat(seal.open("gpu-node-1", LEDGER)).isEqualTo(new LedgerSeal.Opened(LEDGER, false));
  }
}
