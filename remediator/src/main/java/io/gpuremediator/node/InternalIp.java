package io.gpuremediator.node;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/** Parses the {@code instance} label (IP[:port]) into a normalised IP, without ever resolving a name. */
public final class InternalIp {
  private static final Pattern IPV4 =
      Pattern.compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
  private static final Pattern PORT = Pattern.compile("\\d{1,5}");

  private InternalIp() {}

  /** The IP of an {@code IP[:port]} or {@code [IPv6]:port} value; empty when it is not an IP literal. */
  public static Optional<String> fromInstance(String instance) {
    String host = instance;
    if (instance.startsWith("[")) {
      int close = instance.indexOf(']');
      if (close < 0 || !(close == instance.length() - 1
          || (instance.charAt(close + 1) == ':' && PORT.matcher(instance.substring(close + 2)).matches()))) {
        return Optional.empty();
      }
      host = instance.substring(1, close);
    } else if (instance.chars().filter(c -> c == ':').count() == 1) {
      int colon = instance.indexOf(':');
      if (!PORT.matcher(instance.substring(colon + 1)).matches()) {
        return Optional.empty();
      }
      host = instance.substring(0, colon);
    }
    return normalize(host);
  }

  /** The canonical text of an IP literal; empty when it is not one. Never a DNS lookup. */
  public static Optional<String> normalize(String ip) {
    if (IPV4.matcher(ip).matches()) {
      return Optional.of(ip);
    }
    if (ip.indexOf(':') >= 0 && IPV6_CHARS.matcher(ip).matches()) {
      try {
        // Safe: the pattern admits only IPv6 literal characters, so this never consults DNS.
        return Optional.of(InetAddress.getByName(ip).getHostAddress());
      } catch (UnknownHostException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
