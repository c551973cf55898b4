package io.gpuremediator.episode;

import java.util.List;

/**
 * The hot spare pool as the loop's last scan left it ({@code GET /api/v1/fleet}, the page).
 *
 * @param taint the spare taint's key
 * @param count the pool's size when no node of its selection is out of service
 * @param target the spares it holds now: {@code count} less the nodes our episodes hold out of service
 * @param out the nodes of the pool's selection our episodes hold out of service
 * @param spares the nodes held as spares, by name
 */
public record SparesNow(String taint, int count, int target, int out, List<String> spares) {
  /** Copies the names. */
  public SparesNow {
    spares = List.copyOf(spares);
  }
}
