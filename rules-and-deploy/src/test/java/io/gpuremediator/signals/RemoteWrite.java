package io.gpuremediator.signals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A Prometheus remote-write request body (the protobuf {@code WriteRequest}, snappy-compressed), written by hand for
 * the few fields it has: it is the one way to give a store Prometheus's staleness markers with their exact bits.
 * The snappy stream holds literals only, which every decoder reads.
 */
final class RemoteWrite {
  private RemoteWrite() {}

  /** One series: labels (with {@code __name__}), sample times in milliseconds and values (raw bits kept). */
  record Series(Map<String, String> labels, List<Long> timestampsMillis, List<Double> values) {}

  /** The compressed body for {@code series}. */
  static byte[] body(List<Series> series) {
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    for (Series s : series) {
      ByteArrayOutputStream ts = new ByteArrayOutputStream();
      s.labels().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(l -> {
        ByteArrayOutputStream label = new ByteArrayOutputStream();
        bytes(label, 1, l.getKey().getBytes(StandardCharsets.UTF_8));
        bytes(label, 2, l.getValue().getBytes(StandardCharsets.UTF_8));
        bytes(ts, 1, label.toByteArray());
      });
      for (int i = 0; i < s.values().size(); i++) {
        ByteArrayOutputStream sample = new ByteArrayOutputStream();
        varint(sample, 1 << 3 | 1);
        long bits = Double.doubleToRawLongBits(s.values().get(i));
        for (int b = 0; b < 8; b++) {
          sample.write((int) (bits >>> (8 * b)) & 0xff);
        }
        varint(sample, 2 << 3);
        varint(sample, s.timestampsMillis().get(i));
        bytes(ts, 2, sample.toByteArray());
      }
      bytes(request, 1, ts.toByteArray());
    }
    return snappy(request.toByteArray());
  }

  private static void bytes(ByteArrayOutputStream out, int field, byte[] value) {
    varint(out, field << 3 | 2);
    varint(out, value.length);
    out.writeBytes(value);
  }

  private static void varint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7fL) != 0) {
      out.write((int) (value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write((int) value);
  }

  /** The snappy block format with literals of up to 64 KiB (tag 0xfc: a 4-byte little-endian length minus one). */
  private static byte[] snappy(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, raw.length);
    for (int at = 0; at < raw.length; at += 65536) {
      int n = Math.min(65536, raw.length - at);
      out.write(0xfc);
      for (int b = 0; b < 4; b++) {
        out.write((n - 1) >>> (8 * b) & 0xff);
      }
      out.write(raw, at, n);
    }
    return out.toByteArray();
  }
}
