package io.gpuremediator.testing;

import io.gpuremediator.outbound.ScheduledEvent;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local EC2 endpoint answering the query protocol for {@code RebootInstances} over instances the test registers, and
 * {@code DescribeInstanceStatus} over the scheduled events the test gives them, written in the element structure of the
 * API reference's sample response (tests/real/aws/ec2-describe-instance-status-response.xml: an item per instance with
 * an event, its {@code eventsSet} of {@code instanceEventId}, {@code code}, {@code description}, {@code notBefore},
 * {@code notAfter}): a reboot with EC2's answer as its API reference shows it (recorded in tests/real), errors in EC2's documented form
 * {@code <Response><Errors><Error><Code>} (written here). The
 * next reboots can be scripted: throttled (503 RequestLimitExceeded), or applied with the answer lost (the connection
 * closed). Every request is recorded, and every reboot applied.
 */
public final class Ec2Stub extends AwsQueryStub {
  /** EC2's answer to a reboot, as its API reference shows it (tests/real/SOURCES.md). */
  private static final String REBOOTED = recorded("../tests/real/aws/ec2-reboot-instances-response.xml");

  private final Set<String> instances = ConcurrentHashMap.newKeySet();
  private final List<String> rebooted = new CopyOnWriteArrayList<>();
  private final Map<String, List<ScheduledEvent>> events = new ConcurrentHashMap<>();
  private volatile String describedAs;

  /** Starts on 127.0.0.1 and an ephemeral port. */
  public Ec2Stub() throws Exception {
    super();
  }

  /** Registers a running instance. */
  public void instance(String id) {
    instances.add(id);
  }

  /** The instance's scheduled events from now on (none: it leaves the answers). */
  public void events(String instance, ScheduledEvent... scheduled) {
    if (scheduled.length == 0) {
      events.remove(instance);
    } else {
      events.put(instance, List.of(scheduled));
    }
  }

  /** Every DescribeInstanceStatus from now on answered with exactly this body. */
  public void describeAnswers(String xml) {
    describedAs = xml;
  }

  /** The instances a reboot was applied to, one entry per reboot. */
  public List<String> rebooted() {
    return List.copyOf(rebooted);
  }

  @Override
  void handle(HttpServerRequest req, String action, Map<String, String> params) {
    if (action.equals("DescribeInstanceStatus")) {
      describe(req);
      return;
    }
    if (!action.equals("RebootInstances")) {
      error(req, 400, "InvalidAction", "The action " + action + " is not valid for this web service.");
      return;
    }
    Answer answer = nextAnswer();
    if (answer == Answer.THROTTLED) {
      error(req, 503, "RequestLimitExceeded", "Request limit exceeded.");
      return;
    }
    if (answer == Answer.REQUEST_EXPIRED) {
      error(req, 400, "RequestExpired", "Request has expired.");
      return;
    }
    String id = params.getOrDefault("InstanceId.1", "");
    if (!instances.contains(id)) {
      error(req, 400, "InvalidInstanceID.NotFound", "The instance ID '" + id + "' does not exist");
      return;
    }
    rebooted.add(id);
    if (answer == Answer.APPLIED_ANSWER_LOST) {
      req.connection().close();
      return;
    }
    xml(req, 200, REBOOTED);
  }

  private void describe(HttpServerRequest req) {
    if (nextAnswer() == Answer.THROTTLED) {
      error(req, 503, "RequestLimitExceeded", "Request limit exceeded.");
      return;
    }
    if (describedAs != null) {
      xml(req, 200, describedAs);
      return;
    }
    StringBuilder xml = new StringBuilder("<DescribeInstanceStatusResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
        + "<requestId>3be1508e-c444-4fef-89cc-0b1223c4f02fEXAMPLE</requestId><instanceStatusSet>");
    events.forEach((instance, scheduled) -> {
      xml.append("<item><instanceId>").append(instance).append("</instanceId><availabilityZone>us-west-2a</availabilityZone>"
          + "<instanceState><code>16</code><name>running</name></instanceState><eventsSet>");
      for (ScheduledEvent e : scheduled) {
        xml.append("<item><instanceEventId>").append(e.eventId()).append("</instanceEventId><code>").append(e.code())
            .append("</code><description>").append(e.description()).append("</description><notBefore>").append(e.notBefore())
            .append("</notBefore>");
        e.notAfter().ifPresent(a -> xml.append("<notAfter>").append(a).append("</notAfter>"));
        xml.append("</item>");
      }
      xml.append("</eventsSet></item>");
    });
    xml(req, 200, xml.append("</instanceStatusSet></DescribeInstanceStatusResponse>").toString());
  }

  private static String recorded(String file) {
    try {
      return Files.readString(Path.of(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void error(HttpServerRequest req, int status, String code, String message) {
    xml(req, status, "<Response><Errors><Error><Code>" + code + "</Code><Message>" + message + "</Message></Error>"
        + "</Errors><RequestID>e-1</RequestID></Response>");
  }
}
