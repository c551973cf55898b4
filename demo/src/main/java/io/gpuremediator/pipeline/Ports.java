package io.gpuremediator.pipeline;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Loopback ports. */
public final class Ports {
  private Ports() {}

  /** A port free on 127.0.0.1 now (for processes that cannot report the port they bound). */
  public static int free() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  /** Whether something accepts connections on 127.0.0.1:{@code port}. */
  public static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
