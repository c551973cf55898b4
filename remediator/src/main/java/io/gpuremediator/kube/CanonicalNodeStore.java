package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node informer's store, keeping one copy of each string that nodes repeat: label keys and values, annotation
 * keys, and the conditions' texts, in compact immutable maps. A GPU node carries about 60 labels and 20 annotations
 * whose keys (and most label values) are the same on every node; parsed from JSON, each node held its own copy of
 * each, about half of the cache's heap at 10,000 nodes. The node is rebuilt before it is stored, so no reader ever
 * sees it change.
 */
final class CanonicalNodeStore extends BasicItemStore<Node> {
  /** Past this many distinct strings (unique values: hostnames, IPs) strings are kept as they come. */
  static final int POOLED = 200_000;

  private final Map<String, String> pool = new ConcurrentHashMap<>();

  CanonicalNodeStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public Node put(String key, Node node) {
    return super.put(key, canonical(node));
  }

  /** The node with its repeated strings shared (the same object, changed in place before anyone else sees it). */
  Node canonical(Node node) {
    if (node.getMetadata() != null) {
      node.getMetadata().setLabels(shared(node.getMetadata().getLabels(), true));
      node.getMetadata().setAnnotations(shared(node.getMetadata().getAnnotations(), false));
    }
    if (node.getStatus() != null && node.getStatus().getConditions() != null) {
      for (NodeCondition c : node.getStatus().getConditions()) {
        c.setType(string(c.getType()));
        c.setStatus(string(c.getStatus()));
        c.setReason(string(c.getReason()));
        c.setMessage(string(c.getMessage()));
        c.setLastTransitionTime(string(c.getLastTransitionTime()));
      }
    }
    return node;
  }

  /**
   * The map with pooled keys (and values), immutable and compact: half the bytes of a LinkedHashMap's entries, and
   * the node cache's {@code NodeInfo} takes it as it is instead of copying it. A map with a null (which the API server
   * never sends) is kept as a LinkedHashMap.
   */
  private Map<String, String> shared(Map<String, String> map, boolean values) {
    if (map == null) {
      return null;
    }
    Map<String, String> copy = new LinkedHashMap<>((int) (map.size() / 0.75f) + 1);
    boolean nulls = false;
    for (Map.Entry<String, String> e : map.entrySet()) {
      nulls |= e.getKey() == null || e.getValue() == null;
      copy.put(string(e.getKey()), values ? string(e.getValue()) : e.getValue());
    }
    return nulls ? copy : Map.copyOf(copy);
  }

  /** The pooled copy of {@code s}, pooling it when there is room. */
  String string(String s) {
    if (s == null) {
      return null;
    }
    String known = pool.get(s);
    if (known != null) {
      return known;
    }
    if (pool.size() >= POOLED) {
      return s;
    }
    known = pool.putIfAbsent(s, s);
    return known == null ? s : known;
  }
}
