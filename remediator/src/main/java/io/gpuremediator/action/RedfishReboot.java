package io.gpuremediator.action;

import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.OutboundException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

/**
 * {@code method: redfish}: the node's BMC ({@code gpu-remediator.io/bmc-url}), {@code ComputerSystem.Reset} with the
 * strongest restarting type its system allows; a system that allows none is {@code reboot_unsupported}.
 */
final class RedfishReboot implements RebootWay {
  /** The node annotation that holds its BMC's address. */
  static final String BMC_URL_ANNOTATION = NodeKeys.DOMAIN + "bmc-url";

  @Override
  public String description() {
    return "its BMC (Redfish ComputerSystem.Reset, the strongest restart it allows)";
  }

  @Override
  public String ask(LongStepRun<?> run, String image, Duration timeout) throws OutboundException {
    URI bmc = bmcOf(run);
    BmcResets.Reset reset = run.ports().outside().bmcs().restart(bmc);
    return "BMC " + bmc.getHost() + " of " + run.node() + " asked to reset " + reset.system() + " with " + reset.type()
        + " (Redfish ComputerSystem.Reset; it allows " + reset.offered() + ")";
  }

  private static URI bmcOf(LongStepRun<?> run) throws OutboundException {
    String text = run.ports().cluster().node(run.node()).map(n -> n.annotations().get(BMC_URL_ANNOTATION)).orElse(null);
    if (text == null || text.isBlank()) {
      throw OutboundException.refused("the node has no " + BMC_URL_ANNOTATION + " annotation");
    }
    try {
      URI u = new URI(text.strip());
      if ("https".equals(u.getScheme()) && u.getHost() != null && u.getUserInfo() == null) {
        return u;
      }
    } catch (URISyntaxException e) {
      // refused below
    }
    throw OutboundException.refused("its " + BMC_URL_ANNOTATION + " annotation is not an https URL without credentials");
  }
}
