package io.gpuremediator.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A BMC's system is the node's machine when its Redfish UUID is the node's systemUUID, in either of the byte orders
 * real firmware writes SMBIOS's UUID in (metal-stack/go-hal #57: Supermicro X11, Redfish and the BIOS's DMI table).
 */
class SystemUuidTest {
  @Test
  void theSameUuidInAnyCaseIsTheSameMachine() {
    assertThat(SystemUuid.mismatch(Optional.of("38947555-7742-3448-3784-823347823834"),
        Optional.of("38947555-7742-3448-3784-823347823834"))).isEmpty();
    assertThat(SystemUuid.mismatch(Optional.of("B11DD4F2-BFDE-1000-02BC-5CFF35FBE6E9"),
        Optional.of("b11dd4f2-bfde-1000-02bc-5cff35fbe6e9"))).isEmpty();
  }

  @Test
  void aBmcThatWritesTheFirstThreeFieldsByteSwappedIsTheSameMachine() {
    // Recorded on one X11DPT-B board with BIOS 3.8a: Redfish's UUID, then the DMI table's (go-hal #57).
    assertThat(SystemUuid.mismatch(Optional.of("005CB4E7-0989-EB11-8000-7CC255106AFE"),
        Optional.of("e7b45c00-8909-11eb-8000-7cc255106afe"))).isEmpty();
  }

  @Test
  void anotherUuidOrOneThatIsMissingIsAnotherMachine() {
    assertThat(SystemUuid.mismatch(Optional.of("38947555-7742-3448-3784-823347823834"),
        Optional.of("6173ecec-6ef5-11ee-834a-0a8fc3a58a71"))).hasValueSatisfying(m -> assertThat(m)
        .isEqualTo("the BMC's system has UUID 38947555-7742-3448-3784-823347823834, the node's status.nodeInfo.systemUUID"
            + " is 6173ecec-6ef5-11ee-834a-0a8fc3a58a71"));
    assertThat(SystemUuid.mismatch(Optional.empty(), Optional.of("6173ecec-6ef5-11ee-834a-0a8fc3a58a71")))
        .hasValue("the BMC's system states no UUID (absent)");
    assertThat(SystemUuid.mismatch(Optional.of("6173ecec-6ef5-11ee-834a-0a8fc3a58a71"), Optional.empty()))
        .hasValue("the node states no system UUID (status.nodeInfo.systemUUID absent)");
    assertThat(SystemUuid.mismatch(Optional.of("6173ecec-6ef5-11ee-834a-0a8fc3a58a71"), Optional.of("not-a-uuid")))
        .hasValue("the node states no system UUID (status.nodeInfo.systemUUID \"not-a-uuid\")");
  }
}
