package io.gpuremediator.cli;

import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.RemediatorService;
import io.gpuremediator.service.StartupException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/** {@code serve --config FILE}: runs the service until the JVM is stopped. */
final class ServeCommand {
  private ServeCommand() {}

  static int run(List<String> args, PrintStream err) {
    Path file;
    try {
      file = Path.of(Flags.parse(args, Set.of("--config")).required("--config"));
    } catch (IllegalArgumentException e) {
      err.println("remediator serve: " + e.getMessage());
      return 2;
    }
    ConfigLoader.Result loaded = ConfigLoader.load(file);
    if (loaded.config().isEmpty()) {
      List<String> errors = loaded.errors();
      err.println("remediator serve: invalid config: " + errors.get(0)
          + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more; run validate)" : ""));
      return 1;
    }
    RemediatorConfig config = loaded.config().get();
    try {
      LogOutput.use(config.logFormat());
    } catch (IllegalStateException e) {
      err.println("remediator serve: " + e.getMessage());
      return 1;
    }
    KubeApi client;
    try {
      client = KubeApi.connect(config.kubernetes().kubeconfig(), config.kubernetes().qps(),
        config.kubernetes().burst(), config.kubernetes().writesInFlight());
    } catch (NoSuchFileException e) {
      err.println("remediator serve: kubeconfig " + e.getFile() + " does not exist");
      return 1;
    } catch (IOException | RuntimeException e) {
      err.println("remediator serve: cannot configure the Kubernetes client: " + e);
      return 1;
    }
    RemediatorService service = new RemediatorService(config, client, Clock.systemUTC());
    try {
      service.start();
    } catch (StartupException e) {
      err.println("remediator serve: " + e.getMessage());
      client.close();
      return 1;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      service.close();
      client.close();
    }, "remediator-shutdown"));
    return 0;
  }
}
