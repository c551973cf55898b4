package io.gpuremediator.simapi;

import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.function.Consumer;

/**
 * A watch's listener whose close and failure run on a thread of their own, not on the server's event loop.
 *
 * <p>The mock's watch ({@code WatchEventsListener} of kubernetes-server-mock 7.8.0) sends its events from a thread of
 * its own, each send waiting up to 30 s for the event loop to write it; closed, it waits on the event loop for that
 * thread to finish. A client that goes away while events are on their way to its watches (a stopped instance, a lost
 * leader, a busy machine) so blocked one of the server's event loops for 30 s, and every request on a connection of that
 * loop with it: a fresh client's first list waited out its timeout. Here the wait happens beside the loop, which goes on
 * writing, so the send finishes and the close with it. And the watch leaves the writes' way first: closed, it stopped
 * its sender before it left the set of watches a write tells, and a write in between threw (its answer lost).
 */
final class ClosesOffTheEventLoop extends WebSocketListener {
  private final WebSocketListener watch;
  private final Consumer<WebSocketListener> forget;

  /** @param forget takes the watch out of the writes' way before its sender stops ({@link MockInternals#forget}) */
  ClosesOffTheEventLoop(WebSocketListener watch, Consumer<WebSocketListener> forget) {
    this.watch = watch;
    this.forget = forget;
  }

  @Override
  public void onBeforeAccept(WebSocket socket, Response response) {
    watch.onBeforeAccept(socket, response);
  }

  @Override
  public void onOpen(WebSocket socket, Response response) {
    watch.onOpen(socket, response);
  }

  @Override
  public void onMessage(WebSocket socket, String text) {
    watch.onMessage(socket, text);
  }

  @Override
  public void onMessage(WebSocket socket, byte[] bytes) {
    watch.onMessage(socket, bytes);
  }

  @Override
  public void onClosing(WebSocket socket, int code, String reason) {
    watch.onClosing(socket, code, reason);
  }

  @Override
  public void onClosed(WebSocket socket, int code, String reason) {
    beside(() -> watch.onClosed(socket, code, reason));
  }

  @Override
  public void onFailure(WebSocket socket, Throwable error, Response response) {
    beside(() -> watch.onFailure(socket, error, response));
  }

  /** Closes are rare (a watch each), so a thread each; daemon, so a close still waiting never holds the JVM. */
  private void beside(Runnable close) {
    Thread t = new Thread(() -> {
      forget.accept(watch);
      close.run();
    }, "simapi-watch-close");
    t.setDaemon(true);
    t.start();
  }
}
