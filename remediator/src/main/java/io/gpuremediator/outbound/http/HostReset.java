package io.gpuremediator.outbound.http;

import io.gpuremediator.outbound.OutboundException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which ComputerSystem of a BMC is the host, and which reset restarts it, read from the BMC's own resources the way
 * BMCs publish them.
 *
 * <p>The system is the one the node's BMC URL names; else the only member of {@code /redfish/v1/Systems}; else, of
 * several (a GB200 tray's BMC lists {@code System_0} and the {@code HGX_Baseboard_0}), the one with a {@code
 * #ComputerSystem.Reset} action, a physical one when more than one has it. The allowed reset types are the action's
 * inline {@code ResetType@Redfish.AllowableValues}, else the {@code ResetType} parameter's {@code AllowableValues} of
 * the resource its {@code @Redfish.ActionInfo} names; of those, the first of {@link #STRONGEST_FIRST}. A BMC that
 * states no list allows every type (Redfish's rule): {@value #UNSTATED} then. A system with no Reset action, or
 * none of the restarting types among those it allows, is {@link OutboundException#unsupported(String) unsupported}:
 * nothing is sent.
 */
final class HostReset {
  /**
   * The reset types that restart the host, strongest first: {@code PowerCycle} (power removed and restored: what a
   * GPU fallen off the bus needs), {@code ForceRestart} (an immediate restart, no OS shutdown), {@code
   * GracefulRestart} (asks the OS: a hung host may never do it, and the step's timeout then says so).
   */
  static final List<String> STRONGEST_FIRST = List.of("PowerCycle", "ForceRestart", "GracefulRestart");
  /** Sent to a BMC that states no allowed types. */
  static final String UNSTATED = "ForceRestart";
  private static final String ACTION = "#ComputerSystem.Reset";
  private static final int MAX_SYSTEMS = 16;

  /** Reads one of the BMC's resources. */
  @FunctionalInterface
  interface Reader {
    /** The resource at {@code path}; {@code what} names it in errors. */
    JsonObject get(String path, String what) throws OutboundException;
  }

  /**
   * The reset to send: to {@code target}, {@code {"ResetType": type}}.
   *
   * @param uuid the system's {@code UUID}, as it states it (the machine it is)
   */
  record Plan(String system, String target, String type, String offered, Optional<String> uuid) {}

  private record Found(String path, JsonObject resource) {}

  private HostReset() {}

  /**
   * The reset the host's system allows.
   *
   * @param named the system the BMC URL names, if it names one
   * @param bmc the BMC's host, for messages
   */
  static Plan plan(Optional<String> named, String bmc, Reader read) throws OutboundException {
    Found system = named.isPresent() ? new Found(named.get(), read.get(named.get(), "system " + named.get()))
        : host(bmc, read);
    JsonObject reset = object(object(system.resource(), "Actions"), ACTION);
    if (reset == null) {
      throw OutboundException.unsupported("BMC " + bmc + ": system " + system.path() + " offers no " + ACTION
          + " action; nothing was sent");
    }
    Optional<List<String>> allowed = allowed(reset, read);
    String offered = allowed.map(List::toString).orElse("not stated");
    String type = allowed.isEmpty() ? UNSTATED : STRONGEST_FIRST.stream().filter(allowed.get()::contains).findFirst()
        .orElseThrow(() -> OutboundException.unsupported("BMC " + bmc + " allows " + offered + " for " + system.path()
            + ": none restarts the host (" + String.join(", ", STRONGEST_FIRST) + "); nothing was sent"));
    String target = reset.getValue("target") instanceof String t && !t.isBlank() ? t
        : system.path() + "/Actions/ComputerSystem.Reset";
    Optional<String> uuid = system.resource().getValue("UUID") instanceof String u ? Optional.of(u) : Optional.empty();
    return new Plan(system.path(), target, type, offered, uuid);
  }

  /** The allowed types, inline or in the ActionInfo resource; empty when the BMC states none. */
  private static Optional<List<String>> allowed(JsonObject reset, Reader read) throws OutboundException {
    if (reset.getValue("ResetType@Redfish.AllowableValues") instanceof JsonArray inline) {
      return Optional.of(strings(inline));
    }
    if (!(reset.getValue("@Redfish.ActionInfo") instanceof String infoPath) || infoPath.isBlank()) {
      return Optional.empty();
    }
    JsonObject info = read.get(infoPath, "the reset's ActionInfo " + infoPath);
    if (info.getValue("Parameters") instanceof JsonArray parameters) {
      for (Object p : parameters) {
        if (p instanceof JsonObject parameter && "ResetType".equals(parameter.getValue("Name"))
            && parameter.getValue("AllowableValues") instanceof JsonArray values) {
          return Optional.of(strings(values));
        }
      }
    }
    return Optional.empty();
  }

  /** The host's system among the BMC's: the only one, else the one (physical) with a Reset action. */
  private static Found host(String bmc, Reader read) throws OutboundException {
    JsonObject collection = read.get("/redfish/v1/Systems", "the Systems collection");
    List<String> members = new ArrayList<>();
    if (collection.getValue("Members") instanceof JsonArray listed) {
      for (Object m : listed) {
        if (m instanceof JsonObject member && member.getValue("@odata.id") instanceof String id && !id.isBlank()) {
          members.add(id);
        }
      }
    }
    if (members.isEmpty() || members.size() > MAX_SYSTEMS) {
      throw OutboundException.refused("BMC " + bmc + " lists " + members.size() + " systems: name the node's system in"
          + " its BMC url in cloud.redfish.bmcs (https://<bmc>/redfish/v1/Systems/<id>)");
    }
    List<Found> resettable = new ArrayList<>();
    for (String id : members) {
      JsonObject system = read.get(id, "system " + id);
      if (members.size() == 1 || object(object(system, "Actions"), ACTION) != null) {
        resettable.add(new Found(id, system));
      }
    }
    List<Found> physical = resettable.stream()
        .filter(f -> f.resource().getValue("SystemType") == null || "Physical".equals(f.resource().getValue("SystemType")))
        .toList();
    if (resettable.size() == 1 || physical.size() == 1) {
      return resettable.size() == 1 ? resettable.get(0) : physical.get(0);
    }
    if (resettable.isEmpty()) {
      throw OutboundException.unsupported("BMC " + bmc + " lists " + members + ", none with a " + ACTION + " action;"
          + " nothing was sent");
    }
    throw OutboundException.refused("BMC " + bmc + " lists " + resettable.stream().map(Found::path).toList()
        + ", each with a " + ACTION + " action: name the node's system in its BMC url");
  }

  private static JsonObject object(JsonObject in, String key) {
    return in != null && in.getValue(key) instanceof JsonObject o ? o : null;
  }

  private static List<String> strings(JsonArray values) {
    List<String> out = new ArrayList<>();
    values.forEach(v -> {
      if (v instanceof String s) {
        out.add(s);
      }
    });
    return List.copyOf(out);
  }
}
