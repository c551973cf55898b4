package io.gpuremediator.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Raw HTTP/1.1 over a socket, for requests a normal client will not send (lying Content-Length, endless chunks). */
public final class RawHttp {
  private RawHttp() {}

  /**
   * Sends the head, then up to {@code bodyBytes} of body (chunked when {@code chunked}), never ending the body,
   * and returns the status line of the answer. The server must answer without waiting for the rest.
   */
  public static String sendUnfinishedBody(int port, String head, long bodyBytes, boolean chunked) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      byte[] chunk = new byte[64 * 1024];
      Arrays.fill(chunk, (byte) 'a');
      long sent = 0;
      try {
        while (sent < bodyBytes) {
          int n = (int) Math.min(chunk.length, bodyBytes - sent);
          if (chunked) {
            out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
          }
          out.write(chunk, 0, n);
          if (chunked) {
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
          }
          sent += n;
        }
        out.flush();
      } catch (SocketException e) {
        // The server may answer and close while we are still writing: read what it said.
      }
      return statusLine(s.getInputStream());
    }
  }

  private static String statusLine(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      b.append((char) c);
    }
    return b.toString().strip();
  }
}
