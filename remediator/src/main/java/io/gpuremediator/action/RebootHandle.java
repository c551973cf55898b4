package io.gpuremediator.action;

/**
 * Where a reboot step is, as its task's handle keeps it in the ledger: the bootID it waits to see change, and whether
 * the reboot was only recorded ({@code boot=<id>}), is about to be asked ({@code boot=<id> asked}, the intent), or was
 * asked, answered or not ({@code boot=<id> sent}).
 */
record RebootHandle(String boot, State state) {
  /** How far the asking went. */
  enum State {
    RECORDED(""), ASKED(" asked"), SENT(" sent");

    private final String suffix;

    State(String suffix) {
      this.suffix = suffix;
    }
  }

  /** The handle as the ledger keeps it. */
  static RebootHandle parse(String handle) {
    int space = handle.indexOf(' ');
    String boot = handle.substring("boot=".length(), space < 0 ? handle.length() : space);
    State state = handle.endsWith(State.SENT.suffix) ? State.SENT : handle.endsWith(State.ASKED.suffix) ? State.ASKED
        : State.RECORDED;
    return new RebootHandle(boot, state);
  }

  /** The same bootID, at another state. */
  RebootHandle at(State next) {
    return new RebootHandle(boot, next);
  }

  /** As the ledger keeps it. */
  String value() {
    return "boot=" + boot + state.suffix;
  }
}
