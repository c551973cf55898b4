package io.gpuremediator.safety;

import io.gpuremediator.node.NodeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Counting the failure domains ({@code safety.domains}): the selected nodes per value of each domain's label. */
final class Domains {
  private Domains() {}

  /** Per domain label, per value (sorted), the names of the selected nodes that carry it. */
  static Map<String, Map<String, List<String>>> byValue(List<DomainBudget> domains, List<NodeInfo> selected) {
    Map<String, Map<String, List<String>>> out = new TreeMap<>();
    for (DomainBudget d : domains) {
      Map<String, List<String>> values = new TreeMap<>();
      for (NodeInfo n : selected) {
        String value = n.domainValue(d.label()).orElse(null);
        if (value != null) {
          values.computeIfAbsent(value, v -> new ArrayList<>()).add(n.name());
        }
      }
      out.put(d.label(), values);
    }
    return out;
  }

  /** Per domain label, how many of the selected nodes show no value for it ({@link NodeInfo#domainValue}). */
  static Map<String, Integer> missing(List<DomainBudget> domains, List<NodeInfo> selected) {
    Map<String, Integer> out = new TreeMap<>();
    for (DomainBudget d : domains) {
      out.put(d.label(), (int) selected.stream().filter(n -> n.domainValue(d.label()).isEmpty()).count());
    }
    return out;
  }

  /** Every value of every domain as the cache shows the fleet (for {@code GET /api/v1/safety}: no reservation counted). */
  static List<DomainBudget.Usage> usage(List<DomainBudget> domains, Map<String, Map<String, List<String>>> byValue,
      Set<String> unavailable) {
    List<DomainBudget.Usage> out = new ArrayList<>();
    for (DomainBudget d : domains) {
      for (String value : byValue.get(d.label()).keySet()) {
        out.add(usage(d, value, byValue, unavailable, Set.of()));
      }
    }
    return out;
  }

  /**
   * One value's usage: its selected nodes, those unavailable (or reserved by an admission not settled yet), and what its
   * budget allows of them.
   */
  static DomainBudget.Usage usage(DomainBudget d, String value, Map<String, Map<String, List<String>>> byValue,
      Set<String> unavailable, Set<String> reserved) {
    List<String> nodes = byValue.getOrDefault(d.label(), Map.of()).getOrDefault(value, List.of());
    int out = (int) nodes.stream().filter(n -> unavailable.contains(n) || reserved.contains(n)).count();
    return new DomainBudget.Usage(d.label(), value, nodes.size(), out, d.maxUnavailable().of(nodes.size()));
  }
}
