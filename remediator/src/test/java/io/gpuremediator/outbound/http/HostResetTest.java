package io.gpuremediator.outbound.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.testing.RedfishBmcStub;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The host's system and its reset, chosen from real BMCs' resources as their vendors ship them (tests/real/redfish,
 * recorded by DMTF's Redfish-Mockup-Creator; tests/real/SOURCES.md): inline allowed values and ActionInfo resources,
 * PowerCycle where it is allowed, a GB200 tray's and a DGX H100's BMC listing the HGX baseboard beside the host.
 */
class HostResetTest {
  private final List<String> read = new ArrayList<>();

  private HostReset.Reader mockup(String name) {
    Path root = RedfishBmcStub.RECORDED.resolve(name);
    return (path, what) -> {
      read.add(path);
      Path file = root.resolve(path.substring(1)).resolve("index.json");
      if (!Files.isRegularFile(file)) {
        throw OutboundException.refused("404 " + path);
      }
      return RedfishBmcStub.read(file);
    };
  }

  private HostReset.Plan plan(String mockup, String named) throws OutboundException {
    return HostReset.plan(Optional.ofNullable(named), "bmc", mockup(mockup));
  }

  @Test
  void aGb200TraysBmcResetsItsHostSystemNotTheHgxBaseboardWithPowerCycleFromItsActionInfo() throws Exception {
    HostReset.Plan plan = plan("libredfish-nvidia-gb200", null);
    assertThat(plan.system()).isEqualTo("/redfish/v1/Systems/System_0");
    assertThat(plan.target()).isEqualTo("/redfish/v1/Systems/System_0/Actions/ComputerSystem.Reset");
    assertThat(plan.type()).isEqualTo("PowerCycle");
    assertThat(plan.offered()).contains("ForceRestart", "GracefulRestart", "PowerCycle");
    assertThat(read).containsExactly("/redfish/v1/Systems", "/redfish/v1/Systems/System_0",
        "/redfish/v1/Systems/HGX_Baseboard_0", "/redfish/v1/Systems/System_0/ResetActionInfo");
  }

  @Test
  void aDgxH100sBmcResetsTheDgxSystemWithForceRestartTheStrongestItsActionInfoAllows() throws Exception {
    HostReset.Plan plan = plan("libredfish-nvidia-viking", null);
    assertThat(plan.system()).isEqualTo("/redfish/v1/Systems/DGX");
    assertThat(plan.type()).isEqualTo("ForceRestart");
    assertThat(plan.offered()).isEqualTo("[ForceOff, ForceRestart, GracefulShutdown, On]");
  }

  @Test
  void eachVendorsOneSystemGetsTheStrongestRestartItAllowsInlineOrInItsActionInfo() throws Exception {
    assertThat(plan("libredfish-dell", null).type()).as("iDRAC, inline, PowerCycle allowed").isEqualTo("PowerCycle");
    assertThat(plan("libredfish-hpe", null).type()).as("iLO, inline, no PowerCycle").isEqualTo("ForceRestart");
    assertThat(plan("libredfish-supermicro", null).type()).as("ActionInfo only").isEqualTo("PowerCycle");
    assertThat(plan("dmtf-public-rackmount1", null).type()).isEqualTo("ForceRestart");
    read.clear();
    HostReset.Plan lenovo = plan("libredfish-lenovo", null);
    assertThat(lenovo.type()).isEqualTo("ForceRestart");
    assertThat(read).as("inline values and an ActionInfo: the inline ones, no further read")
        .noneMatch(p -> p.endsWith("ResetActionInfo"));
  }

  @Test
  void aSystemTheUrlNamesIsReadAloneAndTheCollectionIsNotListed() throws Exception {
    HostReset.Plan plan = plan("libredfish-dell", "/redfish/v1/Systems/System.Embedded.1");
    assertThat(plan.target()).isEqualTo("/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset");
    assertThat(read).containsExactly("/redfish/v1/Systems/System.Embedded.1");
  }

  @Test
  void theHgxBaseboardNamedByTheUrlOffersNoResetAndIsUnsupported() {
    assertThatThrownBy(() -> plan("libredfish-nvidia-gb200", "/redfish/v1/Systems/HGX_Baseboard_0"))
        .isInstanceOfSatisfying(OutboundException.class, e -> {
          assertThat(e.unsupported()).isTrue();
          assertThat(e.getMessage()).contains("HGX_Baseboard_0 offers no #ComputerSystem.Reset action");
        });
  }

  @Test
  void anOpenBmcThatAllowsNoForceRestartIsAskedForAGracefulRestart() throws Exception {
    JsonObject system = openBmcExample();
    HostReset.Plan plan = HostReset.plan(Optional.of("/redfish/v1/Systems/system"), "bmc", (path, what) -> system);
    assertThat(plan.type()).isEqualTo("GracefulRestart");
    assertThat(plan.target()).isEqualTo("/redfish/v1/Systems/system/Actions/ComputerSystem.Reset");
  }

  @Test
  void aSystemAllowingNoRestartingTypeIsUnsupportedNamingWhatItAllows() throws Exception {
    // the DGX's recorded ActionInfo, its restarting types taken out: On, ForceOff, GracefulShutdown remain
    HostReset.Reader viking = mockup("libredfish-nvidia-viking");
    HostReset.Reader noRestart = (path, what) -> {
      JsonObject resource = viking.get(path, what);
      if (path.endsWith("ResetActionInfo")) {
        JsonObject parameter = resource.getJsonArray("Parameters").getJsonObject(0);
        parameter.put("AllowableValues", new JsonArray(parameter.getJsonArray("AllowableValues").stream()
            .filter(v -> !HostReset.STRONGEST_FIRST.contains(v)).collect(Collectors.toList())));
      }
      return resource;
    };
    assertThatThrownBy(() -> HostReset.plan(Optional.empty(), "bmc", noRestart))
        .isInstanceOfSatisfying(OutboundException.class, e -> {
          assertThat(e.unsupported()).isTrue();
          assertThat(e.getMessage()).contains("allows [ForceOff, GracefulShutdown, On] for /redfish/v1/Systems/DGX")
              .contains("none restarts the host").contains("nothing was sent");
        });
  }

  @Test
  void aBmcThatStatesNoAllowedTypesIsAskedForTheDefaultForceRestart() throws Exception {
    JsonObject system = RedfishBmcStub.read(RedfishBmcStub.DMTF.resolve("redfish/v1/Systems/437XR1138R2/index.json"));
    system.getJsonObject("Actions").getJsonObject("#ComputerSystem.Reset").remove("ResetType@Redfish.AllowableValues");
    HostReset.Plan plan = HostReset.plan(Optional.of("/redfish/v1/Systems/437XR1138R2"), "bmc", (path, what) -> system);
    assertThat(plan.type()).isEqualTo("ForceRestart");
    assertThat(plan.offered()).isEqualTo("not stated");
  }

  /** openbmc-test-automation's recorded example of a system's Actions, from its comment lines. */
  static JsonObject openBmcExample() throws Exception {
    List<String> lines = Files.readAllLines(RedfishBmcStub.RECORDED.resolve("openbmc-test-automation-system-reset-example.txt"));
    return new JsonObject("{" + lines.stream().skip(1).map(l -> l.substring(l.indexOf('#') + 1))
        .collect(Collectors.joining("\n")) + "}");
  }
}
