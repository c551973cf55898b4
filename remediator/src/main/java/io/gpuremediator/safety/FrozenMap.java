package io.gpuremediator.safety;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * A sorted map nobody can change: it reads a TreeMap that it alone holds. The fleet state makes a new version at every
 * webhook that names a new episode; its versions share these maps instead of copying every one of them each time.
 */
final class FrozenMap<K, V> extends AbstractMap<K, V> {
  private final TreeMap<K, V> map;
  private final Map<K, V> view;

  private FrozenMap(TreeMap<K, V> map) {
    this.map = map;
    this.view = Collections.unmodifiableMap(map);
  }

  /** {@code map} itself when it is frozen already, else a frozen sorted copy of it. */
  static <K, V> Map<K, V> of(Map<K, V> map) {
    return map instanceof FrozenMap<K, V> frozen ? frozen : new FrozenMap<>(new TreeMap<>(map));
  }

  /** Freezes a map just built: the caller hands it over and keeps no reference to it. */
  static <K, V> Map<K, V> adopt(TreeMap<K, V> built) {
    return new FrozenMap<>(built);
  }

  /** A sorted copy of {@code map} to change (in linear time when it is frozen: its entries are in order). */
  static <K, V> TreeMap<K, V> thaw(Map<K, V> map) {
    return map instanceof FrozenMap<K, V> frozen ? new TreeMap<>(frozen.map) : new TreeMap<>(map);
  }

  @Override
  public Set<Entry<K, V>> entrySet() {
    return view.entrySet();
  }

  @Override
  public Set<K> keySet() {
    return view.keySet();
  }

  @Override
  public Collection<V> values() {
    return view.values();
  }

  @Override
  public V get(Object key) {
    return map.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return map.containsKey(key);
  }

  @Override
  public int size() {
    return map.size();
  }

  @Override
  public void forEach(BiConsumer<? super K, ? super V> action) {
    map.forEach(action);
  }
}
