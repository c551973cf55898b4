package io.gpuremediator.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A local EC2 Auto Scaling endpoint: answers the query protocol (form POST, XML answers) for
 * {@code DescribeAutoScalingInstances} and {@code SetInstanceHealth}, over instances the test registers. The next
 * SetInstanceHealth answers can be scripted: throttled (400 Throttling), busy (500 ResourceContention), or applied
 * with its answer lost (the connection closed). Every request is recorded.
 */
public final class AutoScalingStub implements AutoCloseable {
  private static final String NS = "http://autoscaling.amazonaws.com/doc/2011-01-01/";

  /** How the next SetInstanceHealth is answered. */
  public enum Answer { OK, THROTTLED, RESOURCE_CONTENTION, APPLIED_ANSWER_LOST }

  /** One request: its action and parameters. */
  public record Call(String action, Map<String, String> params) {}

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final Map<String, String[]> instances = new ConcurrentHashMap<>();
  private final Deque<Answer> script = new ArrayDeque<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final List<String> applied = new CopyOnWriteArrayList<>();

  /** Starts on 127.0.0.1 and an ephemeral port. */
  public AutoScalingStub() throws Exception {
    server = vertx.createHttpServer().requestHandler(this::handle).listen(0, "127.0.0.1").toCompletionStage()
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Where the SDK reaches it ({@code cloud.aws.endpoint}). */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.actualPort());
  }

  /** Registers an instance in a group (HEALTHY). */
  public void instance(String id, String group) {
    instances.put(id, new String[] {group, "HEALTHY"});
  }

  /** The instance's health as the group sees it. */
  public String health(String id) {
    return instances.get(id)[1];
  }

  /** Answers the next SetInstanceHealth requests so, in order (then OK). */
  public synchronized void next(Answer... answers) {
    script.addAll(List.of(answers));
  }

  /** Every request, in order. */
  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The SetInstanceHealth requests received (answered or not). */
  public long setInstanceHealthRequests() {
    return calls.stream().filter(c -> c.action().equals("SetInstanceHealth")).count();
  }

  /** The instances a SetInstanceHealth(Unhealthy) was applied to, one entry per application. */
  public List<String> applied() {
    return List.copyOf(applied);
  }

  private void handle(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      Map<String, String> params = new HashMap<>();
      for (String pair : body.toString(StandardCharsets.UTF_8).split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          params.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
      String action = params.getOrDefault("Action", "");
      calls.add(new Call(action, params));
      switch (action) {
        case "DescribeAutoScalingInstances" -> describe(req, params.get("InstanceIds.member.1"));
        case "SetInstanceHealth" -> setHealth(req, params);
        default -> error(req, 400, "Sender", "InvalidAction", "unknown action " + action);
      }
    });
  }

  private void describe(HttpServerRequest req, String id) {
    String[] known = id == null ? null : instances.get(id);
    String members = known == null ? "" : "<member><InstanceId>" + id + "</InstanceId><AutoScalingGroupName>" + known[0]
        + "</AutoScalingGroupName><AvailabilityZone>us-west-2a</AvailabilityZone><LifecycleState>InService</LifecycleState>"
        + "<HealthStatus>" + known[1] + "</HealthStatus><LaunchTemplate><LaunchTemplateName>gpu</LaunchTemplateName>"
        + "<Version>1</Version></LaunchTemplate><ProtectedFromScaleIn>false</ProtectedFromScaleIn></member>";
    ok(req, "<DescribeAutoScalingInstancesResponse xmlns=\"" + NS + "\"><DescribeAutoScalingInstancesResult>"
        + "<AutoScalingInstances>" + members + "</AutoScalingInstances></DescribeAutoScalingInstancesResult>"
        + "<ResponseMetadata><RequestId>r-" + calls.size() + "</RequestId></ResponseMetadata>"
        + "</DescribeAutoScalingInstancesResponse>");
  }

  private void setHealth(HttpServerRequest req, Map<String, String> params) {
    Answer answer;
    synchronized (this) {
      answer = script.isEmpty() ? Answer.OK : script.poll();
    }
    String id = params.get("InstanceId");
    switch (answer) {
      case THROTTLED -> error(req, 400, "Sender", "Throttling", "Rate exceeded");
      case RESOURCE_CONTENTION -> error(req, 500, "Sender", "ResourceContention",
          "You already have a pending update to an Auto Scaling resource.");
      default -> {
        String[] known = instances.get(id);
        if (known == null) {
          error(req, 400, "Sender", "ValidationError", "Instance Id not found - No managed instance found for instance ID: "
              + id);
          return;
        }
        known[1] = "Unhealthy".equals(params.get("HealthStatus")) ? "UNHEALTHY" : "HEALTHY";
        applied.add(id);
        if (answer == Answer.APPLIED_ANSWER_LOST) {
          req.connection().close();
          return;
        }
        ok(req, "<SetInstanceHealthResponse xmlns=\"" + NS + "\"><ResponseMetadata><RequestId>r-" + calls.size()
            + "</RequestId></ResponseMetadata></SetInstanceHealthResponse>");
      }
    }
  }

  private static void ok(HttpServerRequest req, String xml) {
    req.response().putHeader("Content-Type", "text/xml").end(xml);
  }

  private static void error(HttpServerRequest req, int status, String type, String code, String message) {
    req.response().setStatusCode(status).putHeader("Content-Type", "text/xml").end("<ErrorResponse xmlns=\"" + NS
        + "\"><Error><Type>" + type + "</Type><Code>" + code + "</Code><Message>" + message + "</Message></Error>"
        + "<RequestId>e-1</RequestId></ErrorResponse>");
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
