package io.gpuremediator.safety;

import io.gpuremediator.node.NodeInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The selected fleet as the budgets count it: how many nodes, which are unavailable, and per failure domain's value the
 * nodes that carry it. Brought up to date with the nodes changed since the last count; counted whole the first time,
 * and whenever the fleet cannot say what changed. Not thread-safe: kept under the gate's lock, and the collections it
 * returns are its own, read under that lock only.
 */
final class FleetCounts {
  private final SelectedFleet fleet;
  private final List<DomainBudget> domains;
  private final Map<String, Counted> byName = new HashMap<>();
  private final Set<String> unavailable = new HashSet<>();
  private final Map<String, Map<String, List<String>>> byValue = new TreeMap<>();
  private long countedAt = -1;

  /** What one node adds to the counts: whether it is unavailable, and its value of each domain's label (or null). */
  private record Counted(boolean unavailable, String[] values) {}

  FleetCounts(SelectedFleet fleet, List<DomainBudget> domains) {
    this.fleet = fleet;
    this.domains = List.copyOf(domains);
  }

  /** Brings the counts up to the fleet's generation now. */
  void update() {
    long now = fleet.generation();
    if (now == countedAt) {
      return;
    }
    Optional<List<String>> changed = countedAt < 0 ? Optional.empty() : fleet.changedBetween(countedAt, now);
    if (changed.isPresent()) {
      // The node as cached now, whatever it was at each change: a later change is counted again, to the same result.
      new LinkedHashSet<>(changed.get()).forEach(name -> recount(name, fleet.node(name)));
    } else {
      countWhole(fleet.nodes());
    }
    countedAt = now;
  }

  /** How many nodes are selected. */
  int selected() {
    return byName.size();
  }

  /** The selected nodes that are unavailable ({@link Unavailable}). */
  Set<String> unavailable() {
    return unavailable;
  }

  /** Per domain label, per value (sorted), the selected nodes that carry it, as {@link Domains#byValue} counts them. */
  Map<String, Map<String, List<String>>> domains() {
    return byValue;
  }

  private void countWhole(List<NodeInfo> nodes) {
    byName.clear();
    unavailable.clear();
    byValue.clear();
    domains.forEach(d -> byValue.put(d.label(), new TreeMap<>()));
    nodes.forEach(this::add);
  }

  private void recount(String name, Optional<NodeInfo> now) {
    Counted before = byName.remove(name);
    if (before != null) {
      unavailable.remove(name);
      for (int i = 0; i < domains.size(); i++) {
        if (before.values()[i] != null) {
          Map<String, List<String>> values = byValue.get(domains.get(i).label());
          List<String> nodes = values.get(before.values()[i]);
          nodes.remove(name);
          if (nodes.isEmpty()) {
            values.remove(before.values()[i]);
          }
        }
      }
    }
    now.ifPresent(this::add);
  }

  private void add(NodeInfo n) {
    String[] values = new String[domains.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = n.domainValue(domains.get(i).label()).orElse(null);
      if (values[i] != null) {
        byValue.get(domains.get(i).label()).computeIfAbsent(values[i], v -> new ArrayList<>()).add(n.name());
      }
    }
    Counted counted = new Counted(Unavailable.is(n), values);
    byName.put(n.name(), counted);
    if (counted.unavailable()) {
      unavailable.add(n.name());
    }
  }
}
