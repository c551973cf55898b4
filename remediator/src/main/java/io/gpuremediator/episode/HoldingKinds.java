package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.state.EvidenceJob;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.Held;
import io.gpuremediator.state.HeldSilence;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The table of holding kinds: one row per kind of thing an episode holds off its node. */
final class HoldingKinds {
  private final Map<String, HoldingKind> rows = new LinkedHashMap<>();

  private HoldingKinds(List<HoldingKind> kinds) {
    for (HoldingKind k : kinds) {
      if (rows.put(k.kind(), k) != null) {
        throw new IllegalArgumentException("two rows give back holdings of kind " + k.kind());
      }
    }
  }

  /** The shipped rows, reaching outside through {@code ports}, and {@code more} (a kind of a test's own). */
  static HoldingKinds of(StepPorts ports, List<HoldingKind> more) {
    List<HoldingKind> all = new ArrayList<>(List.of(silence(ports), gpuFence(ports), evidenceJob()));
    all.addAll(more);
    return new HoldingKinds(all);
  }

  /** The row of a kind; empty for a kind this release does not know (a newer release's): it is left as it is. */
  Optional<HoldingKind> row(String kind) {
    return Optional.ofNullable(rows.get(kind));
  }

  /** An Alertmanager silence: expired (one Alertmanager no longer knows, or will not expire as not ours, is forgotten). */
  private static HoldingKind silence(StepPorts ports) {
    return row(HeldSilence.KIND, (node, held) -> {
      try {
        ports.outside().silences().expire(held.name());
        return "Alertmanager silence " + held.name() + " expired";
      } catch (OutboundException ex) {
        if (ex.retriable()) {
          throw new HoldingKind.TryLater(ex.getMessage());
        }
        return "Alertmanager silence " + held.name() + " cannot be expired: " + ex.getMessage() + "; forgotten";
      }
    });
  }

  /** A GPU's DeviceTaintRule: deleted when it is still there and ours; one already gone is seen gone. */
  private static HoldingKind gpuFence(StepPorts ports) {
    return row(FencedGpu.KIND, (node, held) -> {
      try {
        return ActionRegistry.giveBackFence(node, held.name(), ports);
      } catch (ClusterException ex) {
        throw new HoldingKind.TryLater(ex.getMessage());
      }
    });
  }

  /** An evidence Job: kept for people to read, it ends by its own TTL; nothing to give back. */
  private static HoldingKind evidenceJob() {
    return row(EvidenceJob.KIND, (node, held) -> "evidence job " + held.name() + " is left to its TTL, for people");
  }

  @FunctionalInterface
  private interface GiveBack {
    String giveBack(String node, Held held) throws HoldingKind.TryLater;
  }

  private static HoldingKind row(String kind, GiveBack giveBack) {
    return new HoldingKind() {
      @Override
      public String kind() {
        return kind;
      }

      @Override
      public String giveBack(String node, Held held) throws TryLater {
        return giveBack.giveBack(node, held);
      }
    };
  }
}
