package io.gpuremediator.outbound;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether the system a BMC manages is the machine a Node runs on: its Redfish {@code UUID} against the Node's {@code
 * status.nodeInfo.systemUUID} (the kubelet reads SMBIOS's, {@code /sys/class/dmi/id/product_uuid}).
 *
 * <p>Both are SMBIOS's system UUID, written the same way by most BMCs (Redfish's schema asks for SMBIOS's byte
 * order). Some BMC firmware writes the first three fields byte-swapped (Supermicro X11 BIOS 3.8a, metal-stack/go-hal
 * #57): that form is the same machine too. Anything else, or a side that states none, is another machine as far as
 * we can tell.
 */
public final class SystemUuid {
  private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private SystemUuid() {}

  /** Why the two are not the same machine; empty when they are. */
  public static Optional<String> mismatch(Optional<String> bmcSays, Optional<String> nodeSays) {
    Optional<String> bmc = bmcSays.map(u -> u.strip().toLowerCase(Locale.ROOT));
    Optional<String> node = nodeSays.map(u -> u.strip().toLowerCase(Locale.ROOT));
    if (node.isEmpty() || !UUID.matcher(node.get()).matches()) {
      return Optional.of("the node states no system UUID (status.nodeInfo.systemUUID " + nodeSays.map(u -> "\"" + u + "\"")
          .orElse("absent") + ")");
    }
    if (bmc.isEmpty() || !UUID.matcher(bmc.get()).matches()) {
      return Optional.of("the BMC's system states no UUID (" + bmcSays.map(u -> "\"" + u + "\"").orElse("absent") + ")");
    }
    if (bmc.get().equals(node.get()) || swapped(bmc.get()).equals(node.get())) {
      return Optional.empty();
    }
    return Optional.of("the BMC's system has UUID " + bmc.get() + ", the node's status.nodeInfo.systemUUID is "
        + node.get());
  }

  /** The UUID with its first three fields byte-swapped (SMBIOS's little-endian fields read as big-endian). */
  static String swapped(String uuid) {
    return reverse(uuid.substring(0, 8)) + "-" + reverse(uuid.substring(9, 13)) + "-" + reverse(uuid.substring(14, 18))
        + uuid.substring(18);
  }

  private static String reverse(String hex) {
    StringBuilder out = new StringBuilder(hex.length());
    for (int i = hex.length() - 2; i >= 0; i -= 2) {
      out.append(hex, i, i + 2);
    }
    return out.toString();
  }
}
