package io.gpuremediator.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * Debian's headless Chromium, driven through Debian's ChromeDriver with the W3C WebDriver protocol over
 * HTTP (no Selenium: the protocol is a handful of JSON calls). ChromeDriver listens on 127.0.0.1 only and is
 * stopped by its PID on close.
 */
public final class Browser implements AutoCloseable {
  /** Where Debian's packages put them ({@code make test} installs chromium and chromium-driver). */
  public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final String ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Process driver;
  private final String base;
  private final String session;

  private Browser(Process driver, String base, String session) {
    this.driver = driver;
    this.base = base;
    this.session = session;
  }

  /** Starts ChromeDriver and a headless Chromium session with its own profile under {@code profile}. */
  public static Browser start(Path profile) throws Exception {
    if (!Files.isExecutable(CHROMEDRIVER) || !Files.isExecutable(CHROMIUM)) {
      throw new IllegalStateException(CHROMIUM + " and " + CHROMEDRIVER + " are needed: make test installs them"
          + " (Debian packages chromium and chromium-driver)");
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process p = new ProcessBuilder(CHROMEDRIVER.toString(), "--port=" + port)
        .redirectErrorStream(true).redirectOutput(profile.resolveSibling("chromedriver.log").toFile()).start();
    String base = "http://127.0.0.1:" + port;
    try {
      Awaitility.await("chromedriver ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .ignoreExceptions().until(() -> p.isAlive() && new JsonObject(HTTP.send(HttpRequest.newBuilder(URI.create(
              base + "/status")).build(), HttpResponse.BodyHandlers.ofString()).body()).getJsonObject("value")
              .getBoolean("ready", false));
      JsonObject options = new JsonObject().put("binary", CHROMIUM.toString()).put("args", new JsonArray(List.of(
          "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
          "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--window-size=1280,1400", "--user-data-dir=" + profile)));
      JsonObject caps = new JsonObject().put("capabilities", new JsonObject().put("alwaysMatch",
          new JsonObject().put("browserName", "chrome").put("goog:chromeOptions", options)));
      JsonObject created = call("POST", base + "/session", caps);
      return new Browser(p, base, created.getJsonObject("value").getString("sessionId"));
    } catch (Exception e) {
      p.destroyForcibly();
      throw e;
    }
  }

  /** Opens a page and waits for it to load. */
  public void open(String url) throws Exception {
    post("/url", new JsonObject().put("url", url));
  }

  /** Runs a script in the page and returns what it returns (as JSON: a string, number, boolean, object or null). */
  public Object script(String js, Object... args) throws Exception {
    return post("/execute/sync", new JsonObject().put("script", js).put("args", new JsonArray(List.of(args))))
        .getValue("value");
  }

  /** The text of the first element matching a CSS selector, or null when there is none. */
  public String text(String css) throws Exception {
    Object t = script("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css);
    return t == null ? null : t.toString();
  }

  /** Types into the element matching {@code css} (after clearing it), as a user would. */
  public void type(String css, String keys) throws Exception {
    String id = element(css);
    post("/element/" + id + "/clear", new JsonObject());
    post("/element/" + id + "/value", new JsonObject().put("text", keys));
  }

  /** Clicks the element matching {@code css}. */
  public void click(String css) throws Exception {
    post("/element/" + element(css) + "/click", new JsonObject());
  }

  /** Writes a PNG of the viewport. */
  public void screenshot(Path png) throws Exception {
    JsonObject r = call("GET", base + "/session/" + session + "/screenshot", null);
    Files.createDirectories(png.getParent());
    Files.write(png, Base64.getDecoder().decode(r.getString("value")));
  }

  private String element(String css) throws Exception {
    return post("/element", new JsonObject().put("using", "css selector").put("value", css))
        .getJsonObject("value").getString(ELEMENT);
  }

  private JsonObject post(String path, JsonObject body) throws Exception {
    return call("POST", base + "/session/" + session + path, body);
  }

  private static JsonObject call(String method, String url, JsonObject body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json");
    b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
        : b.method(method, HttpRequest.BodyPublishers.ofString(body.encode()));
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonObject answer = new JsonObject(r.body());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("WebDriver " + method + " " + url + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return answer;
  }

  @Override
  public void close() throws Exception {
    try {
      call("DELETE", base + "/session/" + session, null);
    } finally {
      driver.destroy();
      if (!driver.waitFor(10, TimeUnit.SECONDS)) {
        driver.destroyForcibly();
      }
    }
  }
}
