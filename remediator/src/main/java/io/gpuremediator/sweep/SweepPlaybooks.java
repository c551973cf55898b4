package io.gpuremediator.sweep;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.DiagnoseAction.DiagnoseSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What a sweep runs of its playbook (its first {@code diagnose} step), and the sweeps whose playbook has none. */
public final class SweepPlaybooks {
  private SweepPlaybooks() {}

  /** The first diagnose step of the playbook, which a sweep runs. */
  static Optional<DiagnoseSpec> diagnose(Playbook playbook) {
    return playbook.actions().stream().flatMap(a -> ActionRegistry.diagnostic(a).stream()).findFirst();
  }

  /** One sentence per sweep whose playbook no file defines or has no diagnose step: the service does not start. */
  public static List<String> unmet(List<SweepPolicy> sweeps, PlaybookSet playbooks) {
    List<String> out = new ArrayList<>();
    for (SweepPolicy s : sweeps) {
      Optional<Playbook> p = playbooks.named(s.playbook());
      if (p.isEmpty()) {
        out.add("sweeps item " + s.name() + " names playbook " + s.playbook() + ", which no playbook file defines");
      } else if (diagnose(p.get()).isEmpty()) {
        out.add("sweeps item " + s.name() + " names playbook " + s.playbook() + " (" + p.get().source() + "), which has no"
            + " diagnose step for the sweep to run");
      }
    }
    return out;
  }
}
