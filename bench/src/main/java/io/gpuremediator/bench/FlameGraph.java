package io.gpuremediator.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A flame graph of a JFR recording's execution samples (JDK Flight Recorder ships with the JDK; nothing to
 * download): the stacks folded root to leaf, written as collapsed text (one {@code a;b;c count} line per stack, the
 * format flamegraph.pl and speedscope read) and as a self-contained SVG; and the frames that cost the most, for the
 * printed reading.
 */
final class FlameGraph {
  private static final int WIDTH = 1200;
  private static final int ROW = 16;
  /** Frames narrower than this share of the samples are left out of the SVG (they are in the collapsed text). */
  private static final double MIN_SHARE = 0.002;

  private FlameGraph() {}

  /** One node of the call tree. */
  private static final class Frame {
    final String name;
    long samples;
    final Map<String, Frame> children = new LinkedHashMap<>();

    Frame(String name) {
      this.name = name;
    }

    Frame child(String n) {
      return children.computeIfAbsent(n, Frame::new);
    }
  }

  /**
   * What a recording shows: samples, the costliest frames by self time and by total time in the service's code, and
   * the share of the samples each party of the run took ({@link #party}), so that a ratio to a floor can be read
   * beside what the emulated API server cost.
   */
  record Reading(long samples, List<String> topSelf, List<String> topOurs, Map<String, Long> parties) {
    /** {@code the service 12.0%, emulated API server 70.1%, ...}, largest first. */
    String shares() {
      return top(parties, samples, parties.size()).stream().map(l -> l.strip().replaceFirst("^(\\S+) (.*)$", "$2 $1"))
          .reduce((a, b) -> a + ", " + b).orElse("no samples");
    }
  }

  /** Packages of the emulated API server: fabric8's mock and simapi's emulation over it. */
  private static final List<String> SERVER = List.of("io.gpuremediator.simapi.", "io.fabric8.mockwebserver.",
      "io.fabric8.kubernetes.client.server.mock.");

  /**
   * Whose work a sample is: the emulated API server's when any frame is in its packages (its HTTP threads, its watches'
   * senders), else the simulated cluster's (its Job controller, kubelet, provisioner), else the service's when any frame
   * is the service's, else the rest (the bench's own clients, the HTTP I/O both sides share).
   */
  private static String party(List<RecordedFrame> frames) {
    boolean cluster = false;
    boolean service = false;
    for (RecordedFrame f : frames) {
      String name = f.getMethod().getType().getName();
      if (SERVER.stream().anyMatch(name::startsWith)) {
        return "emulated API server";
      }
      cluster |= name.startsWith("io.gpuremediator.simcluster.");
      service |= name.startsWith("io.gpuremediator.") && !name.startsWith("io.gpuremediator.bench.");
    }
    return cluster ? "simulated cluster" : service ? "the service" : "the rest (the bench's clients, HTTP I/O)";
  }

  /** Folds {@code jfr} into {@code base}.collapsed.txt and {@code base}.svg; returns the reading. */
  static Reading write(Path jfr, Path base, String title) throws IOException {
    Map<String, Long> folded = new HashMap<>();
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> ours = new HashMap<>();
    Map<String, Long> parties = new HashMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedStackTrace st = e.getStackTrace();
      if (st == null || st.getFrames().isEmpty()) {
        continue;
      }
      samples++;
      List<RecordedFrame> frames = st.getFrames();
      parties.merge(party(frames), 1L, Long::sum);
      StringBuilder b = new StringBuilder();
      Set<String> seenOurs = new HashSet<>();
      for (int i = frames.size() - 1; i >= 0; i--) {
        String name = name(frames.get(i));
        if (b.length() > 0) {
          b.append(';');
        }
        b.append(name);
        if (name.startsWith("io.gpuremediator.") && !name.startsWith("io.gpuremediator.bench.")
            && !name.startsWith("io.gpuremediator.simapi.") && !name.startsWith("io.gpuremediator.simcluster.")
            && seenOurs.add(name)) {
          ours.merge(name, 1L, Long::sum);
        }
      }
      folded.merge(b.toString(), 1L, Long::sum);
      self.merge(name(frames.get(0)), 1L, Long::sum);
    }
    Path parent = base.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    List<String> lines = new ArrayList<>();
    new TreeMap<>(folded).forEach((stack, n) -> lines.add(stack + " " + n));
    Files.write(Path.of(base + ".collapsed.txt"), lines);
    Frame root = new Frame("all");
    folded.forEach((stack, n) -> {
      root.samples += n;
      Frame f = root;
      for (String part : stack.split(";")) {
        f = f.child(part);
        f.samples += n;
      }
    });
    StringBuilder svg = new StringBuilder();
    int depth = depth(root, root.samples);
    int height = (depth + 2) * ROW + 30;
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"").append(height)
        .append("\" font-family=\"monospace\" font-size=\"11\">\n<text x=\"4\" y=\"16\" font-size=\"14\">")
        .append(escape(title + " (" + samples + " samples)")).append("</text>\n");
    draw(svg, root, 0, WIDTH, height - ROW, root.samples);
    svg.append("</svg>\n");
    Files.writeString(Path.of(base + ".svg"), svg);
    return new Reading(samples, top(self, samples, 12), top(ours, samples, 12), parties);
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static int depth(Frame f, long total) {
    int d = 0;
    for (Frame c : f.children.values()) {
      if ((double) c.samples / total >= MIN_SHARE) {
        d = Math.max(d, depth(c, total));
      }
    }
    return d + 1;
  }

  private static void draw(StringBuilder svg, Frame f, double x, double width, int y, long total) {
    String color = color(f.name);
    double pct = 100.0 * f.samples / total;
    svg.append(String.format(Locale.ROOT, "<g><title>%s (%d samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\""
        + " height=\"%d\" fill=\"%s\" stroke=\"white\" stroke-width=\"0.5\"/>", escape(f.name), f.samples, pct, x, y, width,
        ROW - 1, color));
    int chars = (int) (width / 7);
    if (chars > 3) {
      String label = f.name.length() <= chars ? f.name : f.name.substring(0, chars - 2) + "..";
      svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>", x + 2, y + ROW - 4, escape(label)));
    }
    svg.append("</g>\n");
    double cx = x;
    List<Frame> children = new ArrayList<>(f.children.values());
    children.sort(Comparator.comparing(c -> c.name));
    for (Frame c : children) {
      double w = width * c.samples / f.samples;
      if ((double) c.samples / total >= MIN_SHARE) {
        draw(svg, c, cx, w, y - ROW, total);
      }
      cx += w;
    }
  }

  private static String color(String name) {
    if (name.startsWith("io.gpuremediator.")) {
      return "#f28e2b";
    } else if (name.startsWith("io.vertx.") || name.startsWith("io.netty.")) {
      return "#4e79a7";
    } else if (name.startsWith("io.fabric8.") || name.startsWith("okhttp3.")) {
      return "#b07aa1";
    } else if (name.startsWith("com.fasterxml.")) {
      return "#59a14f";
    } else if (name.startsWith("ch.qos.") || name.startsWith("org.slf4j.")) {
      return "#e15759";
    }
    return "#bab0ac";
  }

  private static List<String> top(Map<String, Long> counts, long total, int n) {
    return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
        .map(e -> String.format(Locale.ROOT, "%5.1f%% %s", 100.0 * e.getValue() / Math.max(1, total), e.getKey())).toList();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
