package io.gpuremediator.testing;

import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local EC2 Auto Scaling endpoint: answers the query protocol (form POST, XML answers) for
 * {@code DescribeAutoScalingInstances} and {@code SetInstanceHealth}, over instances the test registers. The next
 * SetInstanceHealth answers can be scripted: throttled (400 Throttling), busy (500 ResourceContention), or applied
 * with its answer lost (the connection closed). Every request is recorded.
 */
public final class AutoScalingStub extends AwsQueryStub {
  private static final String NS = "http://autoscaling.amazonaws.com/doc/2011-01-01/";

  private final Map<String, String[]> instances = new ConcurrentHashMap<>();
  private final List<String> applied = new CopyOnWriteArrayList<>();
  private final Deque<String[]> documented = new ArrayDeque<>();

  /** Starts on 127.0.0.1 and an ephemeral port. */
  public AutoScalingStub() throws Exception {
    super();
  }

  /** Registers an instance in a group (HEALTHY). */
  public void instance(String id, String group) {
    instances.put(id, new String[] {group, "HEALTHY"});
  }

  /** The instance's health as the group sees it. */
  public String health(String id) {
    return instances.get(id)[1];
  }

  /** The SetInstanceHealth requests received (answered or not). */
  public long setInstanceHealthRequests() {
    return requests("SetInstanceHealth");
  }

  /** The instances a SetInstanceHealth(Unhealthy) was applied to, one entry per application. */
  public List<String> applied() {
    return List.copyOf(applied);
  }

  /** Auto Scaling's words for an instance inside its grace period, as recorded (tests/real/aws). */
  static final String GRACE_PERIOD_MESSAGE = graceMessage();

  private static String graceMessage() {
    try {
      String text = Files.readString(Path.of("../tests/real/aws/autoscaling-set-instance-health-grace-period.txt"));
      Matcher m = Pattern.compile("occurred: (.*)").matcher(text);
      if (!m.find()) {
        throw new IllegalStateException("no message in the recorded answer");
      }
      return m.group(1).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  void handle(HttpServerRequest req, String action, Map<String, String> params) {
    switch (action) {
      case "DescribeAutoScalingInstances" -> describe(req, params.get("InstanceIds.member.1"));
      case "SetInstanceHealth" -> setHealth(req, params);
      default -> error(req, 400, "Sender", "InvalidAction", "unknown action " + action);
    }
  }

  private void describe(HttpServerRequest req, String id) {
    String[] known = id == null ? null : instances.get(id);
    String members = known == null ? "" : "<member><InstanceId>" + id + "</InstanceId><AutoScalingGroupName>" + known[0]
        + "</AutoScalingGroupName><AvailabilityZone>us-west-2a</AvailabilityZone><LifecycleState>InService</LifecycleState>"
        + "<HealthStatus>" + known[1] + "</HealthStatus><LaunchTemplate><LaunchTemplateName>gpu</LaunchTemplateName>"
        + "<Version>1</Version></LaunchTemplate><ProtectedFromScaleIn>false</ProtectedFromScaleIn></member>";
    ok(req, "<DescribeAutoScalingInstancesResponse xmlns=\"" + NS + "\"><DescribeAutoScalingInstancesResult>"
        + "<AutoScalingInstances>" + members + "</AutoScalingInstances></DescribeAutoScalingInstancesResult>"
        + "<ResponseMetadata><RequestId>r-" + calls().size() + "</RequestId></ResponseMetadata>"
        + "</DescribeAutoScalingInstancesResponse>");
  }

  /**
   * Answers the next SetInstanceHealth with this error, in the query protocol's error body (Sender for a 4xx, Receiver
   * for a 5xx), before any scripted answer.
   */
  public synchronized void nextError(int status, String code, String message) {
    documented.add(new String[] {Integer.toString(status), code, message});
  }

  private void setHealth(HttpServerRequest req, Map<String, String> params) {
    String[] error;
    synchronized (this) {
      error = documented.poll();
    }
    if (error != null) {
      int status = Integer.parseInt(error[0]);
      error(req, status, status >= 500 ? "Receiver" : "Sender", error[1], error[2]);
      return;
    }
    Answer answer = nextAnswer();
    String id = params.get("InstanceId");
    switch (answer) {
      case THROTTLED -> error(req, 400, "Sender", "Throttling", "Rate exceeded");
      case RESOURCE_CONTENTION -> error(req, 500, "Sender", "ResourceContention",
          "You already have a pending update to an Auto Scaling resource.");
      case GRACE_PERIOD -> error(req, 400, "Sender", "ValidationError", GRACE_PERIOD_MESSAGE);
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
        ok(req, "<SetInstanceHealthResponse xmlns=\"" + NS + "\"><ResponseMetadata><RequestId>r-" + calls().size()
            + "</RequestId></ResponseMetadata></SetInstanceHealthResponse>");
      }
    }
  }

  private static void ok(HttpServerRequest req, String xml) {
    xml(req, 200, xml);
  }

  private static void error(HttpServerRequest req, int status, String type, String code, String message) {
    xml(req, status, "<ErrorResponse xmlns=\"" + NS + "\"><Error><Type>" + type + "</Type><Code>" + code + "</Code><Message>"
        + message + "</Message></Error><RequestId>e-1</RequestId></ErrorResponse>");
  }
}
