package io.gpuremediator.demo;

import io.gpuremediator.pipeline.Layout;
import io.gpuremediator.pipeline.Options;
import io.gpuremediator.pipeline.Pipeline;
import io.gpuremediator.pipeline.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * {@code java -jar demo/target/demo.jar [--verbose] [--root DIR]}: starts the whole loop on 127.0.0.1,
 * plays the story, stops every process by PID and checks that nothing is left listening. Exits 1 when the
 * pipeline did not do what the story expects. {@code --verbose} also prints each raw webhook.
 */
public final class Main {
  private Main() {}

  /** Runs the demo. */
  public static void main(String[] args) throws Exception {
    boolean verbose = false;
    Path root = Path.of("");
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--verbose")) {
        verbose = true;
      } else if (args[i].equals("--root") && i + 1 < args.length) {
        root = Path.of(args[++i]);
      } else {
        System.err.println("usage: demo [--verbose] [--root DIR]");
        System.exit(2);
      }
    }
    System.exit(run(new Layout(root, root.resolve(".demo")), verbose));
  }

  private static int run(Layout layout, boolean verbose) throws Exception {
    long t0 = System.nanoTime();
    Files.createDirectories(layout.work());
    LibraryLog.to(layout.work().resolve("libraries.log"));
    Timeline t = new Timeline(System.out, verbose);
    t.plain("GPU Remediator demo: the whole loop on 127.0.0.1 (logs and configs in " + layout.root().relativize(layout.run()) + "/)");
    Pipeline pipeline;
    try {
      pipeline = Pipeline.start(layout, Options.demo(verbose), t);
    } catch (Exception e) {
      t.plain("FAILED to start the pipeline (everything it started is stopped): " + e.getMessage());
      t.plain("the processes' logs are in " + layout.run() + ", this JVM's in " + layout.work().resolve("libraries.log"));
      return 1;
    }
    AtomicBoolean stopped = new AtomicBoolean();
    Thread onInterrupt = new Thread(() -> stop(pipeline, t, stopped), "demo-stop");
    Runtime.getRuntime().addShutdownHook(onInterrupt);
    int status = 0;
    try {
      new Story(pipeline, t).play();
    } catch (Milestones.Missed e) {
      t.plain("");
      t.plain("FAILED: the pipeline did not do what the story expects: " + e.getMessage());
      t.plain("the processes' logs are in " + layout.run());
      status = 1;
    } finally {
      stop(pipeline, t, stopped);
      Runtime.getRuntime().removeShutdownHook(onInterrupt);
    }
    t.plain(String.format("demo ended in %s", Timeline.human(Duration.ofNanos(System.nanoTime() - t0))));
    return status;
  }

  private static void stop(Pipeline pipeline, Timeline t, AtomicBoolean stopped) {
    if (stopped.getAndSet(true)) {
      return;
    }
    List<Processes.Started> started = pipeline.processes();
    pipeline.close();
    t.plain("");
    t.plain("stopped by PID: " + started.stream().map(s -> s.name() + " " + s.pid() + exit(s.process()))
        .collect(Collectors.joining(", ")));
    List<Integer> listening = pipeline.stillListening();
    t.plain(listening.isEmpty() ? "nothing is left listening" : "STILL LISTENING on 127.0.0.1 ports " + listening);
  }

  /** How a process ended: 143 is a JVM's normal answer to SIGTERM. */
  private static String exit(Process p) {
    int code = p.exitValue();
    return code == 0 || code == 143 ? "" : " (exit " + code + ")";
  }
}
