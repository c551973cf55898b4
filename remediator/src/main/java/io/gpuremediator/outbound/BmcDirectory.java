package io.gpuremediator.outbound;

import java.util.Optional;

/** Which BMC belongs to which node, from what operators write only (the config, a mounted ConfigMap). */
public interface BmcDirectory {
  /**
   * The BMC of the node of this name or {@code spec.providerID}.
   *
   * @throws OutboundException refused when none is written for it, or two entries disagree; transient when the list
   *     cannot be read now (a ConfigMap being rewritten)
   */
  BmcAddress find(String node, Optional<String> providerId) throws OutboundException;
}
