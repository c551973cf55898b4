package io.gpuremediator.cli;

import java.io.PrintStream;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;

/** {@code java -jar remediator.jar COMMAND ...}. */
public final class Main {
  static final String USAGE = String.join("\n",
      "usage: remediator COMMAND",
      "  serve --config FILE                                   run the service",
      "  validate PATH...                                      check config and playbook files/dirs offline",
      "  explain --config FILE --alerts PAYLOAD.json [--nodes NODES.yaml]",
      "                                                        offline dry-run of one webhook body",
      "  backtest --config FILE --prometheus URL [--since 7d] [--nodes NODES.yaml]",
      "                                                        replay Prometheus' ALERTS history in dry-run, per day");

  private Main() {}

  /** Runs a command and exits with its code. */
  public static void main(String[] args) {
    String command = args.length == 0 ? "" : args[0];
    if (!command.equals("serve")) {
      // The offline commands print results, not logs.
      System.setProperty("remediator.log.level", "WARN");
    }
    int code = run(command, Arrays.asList(args).subList(Math.min(1, args.length), args.length), System.out, System.err);
    if (code != 0 || !command.equals("serve")) {
      System.exit(code);
    }
  }

  /** Runs a command; returns its exit code. {@code serve} returns 0 once the service is running. */
  static int run(String command, List<String> args, PrintStream out, PrintStream err) {
    return switch (command) {
      case "serve" -> ServeCommand.run(args, err);
      case "validate" -> ValidateCommand.run(args, out, err);
      case "explain" -> ExplainCommand.run(args, out, err);
      case "backtest" -> BacktestCommand.run(args, out, err, Clock.systemUTC());
      case "-h", "--help", "help" -> {
        out.println(USAGE);
        yield 0;
      }
      default -> {
        err.println(command.isEmpty() ? USAGE : "remediator: unknown command \"" + command + "\"\n" + USAGE);
        yield 2;
      }
    };
  }
}
