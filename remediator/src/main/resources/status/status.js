'use strict';
// The status page: reads the JSON API every second and draws it with textContent only (never innerHTML), so a
// node label or a reason carrying markup shows as text. The token, when the address needs one, stays in this tab.
(function () {
  const TOKEN_KEY = 'gpu-remediator-token';
  const MAP_LABEL_KEY = 'gpu-remediator-map-label';
  const REFRESH_MS = 1000;
  let token = sessionStorage.getItem(TOKEN_KEY) || '';
  let timer = null;
  let last = { nodes: [], decisions: [] };

  class NeedsToken extends Error {}

  function byId(id) {
    return document.getElementById(id);
  }

  function text(id, value) {
    byId(id).textContent = value === null || value === undefined ? '' : String(value);
  }

  function element(tag, content, className) {
    const e = document.createElement(tag);
    if (content !== null && content !== undefined) {
      e.textContent = String(content);
    }
    if (className) {
      e.className = className;
    }
    return e;
  }

  function headers(json) {
    const h = {};
    if (token) {
      h.Authorization = 'Bearer ' + token;
    }
    if (json) {
      h['Content-Type'] = 'application/json';
    }
    return h;
  }

  async function get(path) {
    const r = await fetch(path, { headers: headers(false), cache: 'no-store' });
    if (r.status === 401) {
      throw new NeedsToken('this address needs a token');
    }
    if (!r.ok) {
      throw new Error(path + ': HTTP ' + r.status);
    }
    return r.json();
  }

  function drawFleet(s) {
    const m = s.max_unavailable;
    text('selected', m.selected_nodes);
    text('unavailable', m.unavailable);
    text('budget-left', m.left + ' of ' + m.budget);
    const domains = (s.domains || []).map(d => d.label + '=' + d.value + ': ' + d.left + ' of ' + d.budget
      + ' (' + d.unavailable + ' of ' + d.selected_nodes + ' out)');
    text('domains', domains.length ? domains.join('; ') : 'none configured');
    const limits = (s.limits || []).map(l => l.limit + ': ' + l.used + ' of ' + l.allowed + ' (' + l.detail + ')');
    text('limits', limits.join('; '));
    const warnings = s.warnings || [];
    text('budget-warnings', warnings.length ? warnings.join(' ') : 'none');
    byId('budget-warnings').className = warnings.length ? 'paused' : '';
    text('rate', s.rate_limit.used + ' used of ' + s.rate_limit.limit + ' (' + s.rate_limit.left + ' left)');
    const starts = Object.entries(s.rate_limit.playbook_starts || {}).map(([k, v]) => k + ': ' + v);
    text('playbook-starts', starts.length ? starts.join(', ') : 'none');
    const b = s.breaker;
    text('breaker-state', b.state);
    byId('breaker-state').className = b.state;
    text('breaker-detail', b.nodes_in_window + ' nodes in the window of ' + b.window + ' (opens above ' + b.threshold + ')'
      + (b.opened_at ? '; open since ' + b.opened_at : ''));
    text('breaker-reason', b.reason || '');
    drawIncidents(s.incidents || []);
    const p = s.pause;
    text('pause-state', p.paused ? 'paused' : 'not paused');
    byId('pause-state').className = p.paused ? 'paused' : '';
    text('pause-reason', p.paused ? p.reason : '');
    text('pause-detail', p.paused ? 'since ' + p.since + ', until ' + p.until + (p.by ? ', by ' + p.by : '') : '');
  }

  let drawnIncidents = '';

  /**
   * The open incidents, each with its nodes, its reason and a button that resets it (the reason above required);
   * redrawn only when they changed, so a button stays put under the pointer.
   */
  function drawIncidents(incidents) {
    text('incident-state', incidents.length ? incidents.length + ' open' : 'none open');
    byId('incident-state').className = incidents.length ? 'open' : 'closed';
    const drawn = JSON.stringify(incidents);
    if (drawn === drawnIncidents) {
      return;
    }
    drawnIncidents = drawn;
    const list = byId('incident-list');
    list.replaceChildren();
    for (const i of incidents) {
      const item = element('li', i.label + '=' + i.value + ' since ' + i.opened_at + ': ' + i.reason + ' ');
      const reset = element('button', 'Reset ' + i.label + '=' + i.value);
      reset.type = 'button';
      reset.addEventListener('click', () => {
        const reason = reasonFrom('incident-reset-reason');
        if (reason) {
          act('POST', '/api/v1/safety/domains/' + i.label + '/' + encodeURIComponent(i.value) + '/reset', { reason: reason });
        }
      });
      item.append(reset);
      list.append(item);
    }
  }

  /** A duration in seconds, as people read it: 45s, 12m 3s, 2h 5m, 3d 4h. */
  function human(seconds) {
    const s = Math.round(seconds);
    if (s < 60) {
      return s + 's';
    }
    if (s < 3600) {
      return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    }
    if (s < 86400) {
      return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
    }
    return Math.floor(s / 86400) + 'd ' + Math.floor((s % 86400) / 3600) + 'h';
  }

  /**
   * The recovery histograms from /metrics (Prometheus text): episodes ended by outcome and by who closed them (automatic,
   * a human, or the repairer a deferred episode waited for), with their mean time from the fault; the repairs alone (a GPU reset, a reboot), without the drain; and
   * the time between a node's episodes. Since this instance started, as the histograms are.
   */
  function drawRecovery(metrics) {
    const ended = new Map();
    const sums = { remediator_node_incident_interval_seconds: { count: 0, sum: 0 }, remediator_episode_repair_seconds: { count: 0, sum: 0 } };
    for (const line of metrics.split('\n')) {
      const m = /^(remediator_episode_duration_seconds|remediator_episode_repair_seconds|remediator_node_incident_interval_seconds)_(count|sum)(\{[^}]*\})? (\S+)$/
        .exec(line);
      if (!m) {
        continue;
      }
      const value = Number(m[4]);
      if (m[1] !== 'remediator_episode_duration_seconds') {
        sums[m[1]][m[2]] += value;
        continue;
      }
      const outcome = (/outcome="([^"]*)"/.exec(m[3] || '') || [])[1] || 'unknown';
      const closer = (/closed_by="([^"]*)"/.exec(m[3] || '') || [])[1];
      const by = closer === 'human' ? ' by a human' : closer === 'other' ? ' by another repairer' : '';
      const o = ended.get(outcome + by) || { count: 0, sum: 0 };
      o[m[2]] += value;
      ended.set(outcome + by, o);
    }
    const parts = [...ended.entries()].filter(([, o]) => o.count > 0).sort()
      .map(([outcome, o]) => outcome + ' ' + o.count + ' (mean ' + human(o.sum / o.count) + ' from the fault)');
    const repairs = sums.remediator_episode_repair_seconds;
    text('recovery', (parts.length ? parts.join(', ') : 'no episode ended yet') + (repairs.count > 0 ? '; repairs alone'
      + ' (GPU resets, reboots, without the drain): ' + repairs.count + ', mean ' + human(repairs.sum / repairs.count) : ''));
    const incidents = sums.remediator_node_incident_interval_seconds;
    text('incidents', incidents.count > 0 ? incidents.count + ' repeat episodes on a node, mean ' + human(incidents.sum
      / incidents.count) + ' after its previous one' : 'none yet');
  }

  async function getText(path) {
    const r = await fetch(path, { headers: headers(false), cache: 'no-store' });
    if (!r.ok) {
      throw new Error(path + ': HTTP ' + r.status);
    }
    return r.text();
  }

  let drawnNodes = '';

  /** The nodes by stage; redrawn only when they changed, so a row's buttons stay put under the pointer. */
  function drawNodes(nodes) {
    const drawn = JSON.stringify(nodes);
    if (drawn === drawnNodes) {
      return;
    }
    drawnNodes = drawn;
    const stages = new Map();
    for (const n of nodes) {
      const stage = n.stage || 'holding changes';
      if (!stages.has(stage)) {
        stages.set(stage, []);
      }
      stages.get(stage).push(n);
    }
    const box = byId('stages');
    box.replaceChildren();
    if (stages.size === 0) {
      box.append(element('p', 'none'));
      return;
    }
    for (const [stage, list] of stages) {
      box.append(element('h3', stage + ' (' + list.length + ')'));
      const table = element('table');
      table.className = 'stage';
      table.dataset.stage = stage;
      for (const n of list) {
        const row = element('tr');
        row.dataset.node = n.node;
        const step = !n.step ? '' : n.step.running ? 'running ' + n.step.running
          : n.step.index ? n.step.list + ' step ' + n.step.index : n.step.list + ' done';
        const controls = element('td');
        if (n.stage) {
          controls.append(nodeButton('Release', 'release', n.node), nodeButton('Retry', 'retry', n.node));
        }
        const progress = element('td', n.progress || '', 'progress');
        if (n.fenced_gpus && n.fenced_gpus.length) { // the GPUs fenced by a DeviceTaintRule; the node stays in service
          progress.append(element('div', 'fenced: ' + n.fenced_gpus.map(g => g.uuid + ' (' + g.device + ', rule '
            + g.rule + ')').join(', '), 'fenced'));
        }
        if (n.evidence && n.evidence.length) { // the evidence Jobs collected before a reboot or a replacement
          progress.append(element('div', 'evidence: ' + n.evidence.join(', '), 'evidence'));
        }
        row.append(element('td', n.node), element('td', 'since ' + (n.stage_since || n.since || '')),
          element('td', (n.playbooks || []).join(', ')), element('td', step), progress, controls);
        table.append(row);
      }
      box.append(table);
    }
  }

  /** A row's Release or Retry button: POST /api/v1/nodes/{node}/{action} with the reason typed above the list. */
  function nodeButton(label, action, node) {
    const b = element('button', label, 'node-action ' + action);
    b.type = 'button';
    b.addEventListener('click', () => {
      const reason = byId('node-reason').value.trim();
      if (!reason) {
        text('node-message', 'a reason is required');
        return;
      }
      act('POST', '/api/v1/nodes/' + encodeURIComponent(node) + '/' + action, { reason: reason }, 'node-message');
    });
    return b;
  }

  /** A stage as a class name: the codes the API sends, anything else grey. */
  function stageClass(stage) {
    return /^[a-z_]+$/.test(stage) ? 'stage-' + stage : 'stage-other';
  }

  function counts(stages) {
    return Object.entries(stages || {}).sort().map(([stage, n]) => stage + ' ' + n).join(', ');
  }

  function drawMap(fleet) {
    const legend = byId('map-legend');
    legend.replaceChildren(element('span', fleet.selected_nodes + ' selected nodes:'));
    for (const [stage, n] of Object.entries(fleet.stages || {}).sort()) {
      legend.append(element('span', '', 'legend-cell ' + stageClass(stage)), element('span', stage + ' ' + n));
    }
    if (fleet.spares) { // the hot spare pool: what it holds now of its target, while nodes of its selection are out
      const p = fleet.spares;
      legend.append(element('span', '; hot spares ' + p.nodes.length + ' of ' + p.target + ' (pool of ' + p.count + ', '
        + p.out_of_service + ' out of service)' + (p.nodes.length ? ': ' + p.nodes.join(', ') : '')));
    }
    if (fleet.maintenance && fleet.maintenance.length) { // the cloud's scheduled events, the soonest first
      legend.append(element('span', '; cloud maintenance: ' + fleet.maintenance.slice(0, 5).map(m => m.node + ' '
        + m.event_code + ' not before ' + m.not_before + (m.due ? ' (draining ahead)' : '')).join(', ')
        + (fleet.maintenance.length > 5 ? ' and ' + (fleet.maintenance.length - 5) + ' more' : '')));
    }
    for (const s of fleet.sweeps || []) { // health sweeps of idle nodes: those under way, those due, what holds them back
      legend.append(element('span', '; sweep ' + s.name + ': ' + s.running.length + ' of ' + s.max_concurrent + ' running'
        + (s.running.length ? ' (' + s.running.map(r => r.node).join(', ') + ')' : '') + ', ' + s.due + ' due'
        + (s.blocked_by ? ', held back: ' + s.blocked_by : '')));
    }
    const box = byId('fleet-map');
    box.replaceChildren();
    for (const g of fleet.groups) {
      const group = element('div', null, 'map-group');
      group.dataset.value = g.value;
      const name = !fleet.group_by ? 'all nodes' : g.value ? fleet.group_by + '=' + g.value : 'without ' + fleet.group_by;
      group.append(element('h3', name + ' (' + g.nodes.length + '): ' + counts(g.stages)));
      const cells = element('div', null, 'cells');
      for (const n of g.nodes) {
        const cell = element('span', null, 'cell ' + stageClass(n.stage));
        cell.dataset.node = n.node;
        cell.dataset.stage = n.stage;
        // a node with a GPU fenced stays in service: the cell says which GPUs are out
        const what = n.node + ': ' + n.stage + (n.fenced_gpus ? ' (fenced GPU ' + n.fenced_gpus.join(', ') + ')' : '');
        cell.title = what;
        cell.setAttribute('aria-label', what);
        if (n.fenced_gpus) {
          cell.dataset.fenced = n.fenced_gpus.length;
          cell.textContent = n.fenced_gpus.length;
        }
        cells.append(cell);
      }
      group.append(cells);
      box.append(group);
    }
  }

  function drawDecisions(decisions) {
    const node = byId('filter-node').value.trim();
    const outcome = byId('filter-outcome').value;
    const body = byId('decisions').tBodies[0];
    body.replaceChildren();
    for (const d of decisions) {
      if ((node && !String(d.node).includes(node)) || (outcome && d.outcome !== outcome)) {
        continue;
      }
      const row = element('tr');
      row.dataset.node = d.node;
      row.dataset.outcome = d.outcome;
      row.append(element('td', d.time), element('td', d.node), element('td', d.alertname), element('td', d.status),
        element('td', d.playbook), element('td', d.outcome), element('td', d.reason));
      row.title = d.detail || '';
      body.append(row);
    }
  }

  async function refresh() {
    clearTimeout(timer);
    try {
      const label = byId('map-label').value.trim();
      const [safety, nodes, decisions, metrics, fleet] = await Promise.all([
        get('/api/v1/safety'), get('/api/v1/nodes'), get('/api/v1/decisions?limit=100'), getText('/metrics'),
        get('/api/v1/fleet' + (label ? '?group_by=' + encodeURIComponent(label) : ''))]);
      last = { nodes: nodes.nodes, decisions: decisions.decisions };
      drawFleet(safety);
      drawMap(fleet);
      drawRecovery(metrics);
      drawNodes(last.nodes);
      drawDecisions(last.decisions);
      byId('token-form').hidden = true;
      text('error', '');
      text('updated', new Date().toISOString());
    } catch (e) {
      if (e instanceof NeedsToken) {
        byId('token-form').hidden = false;
      }
      text('error', e.message);
    } finally {
      timer = setTimeout(refresh, REFRESH_MS);
    }
  }

  async function act(method, path, body, messageId) {
    const where = messageId || 'message';
    try {
      const r = await fetch(path, { method: method, headers: headers(true), body: JSON.stringify(body) });
      const answer = await r.text();
      text(where, method + ' ' + path + ': ' + (r.ok ? 'done' : 'HTTP ' + r.status + ' ' + answer));
    } catch (e) {
      text(where, method + ' ' + path + ': ' + e.message);
    }
    refresh();
  }

  function reasonFrom(id) {
    const reason = byId(id).value.trim();
    if (!reason) {
      text('message', 'a reason is required');
    }
    return reason;
  }

  document.addEventListener('DOMContentLoaded', () => {
    byId('token-save').addEventListener('click', () => {
      token = byId('token').value.trim();
      sessionStorage.setItem(TOKEN_KEY, token);
      refresh();
    });
    byId('pause-set').addEventListener('click', () => {
      const reason = reasonFrom('pause-reason-input');
      if (reason) {
        act('POST', '/api/v1/pause', { reason: reason, duration: byId('pause-duration').value.trim() });
      }
    });
    byId('pause-resume').addEventListener('click', () => {
      const reason = reasonFrom('pause-reason-input');
      if (reason) {
        act('DELETE', '/api/v1/pause', { reason: reason });
      }
    });
    byId('breaker-reset').addEventListener('click', () => {
      const reason = reasonFrom('breaker-reset-reason');
      if (reason) {
        act('POST', '/api/v1/breaker/reset', { reason: reason });
      }
    });
    const mapLabel = sessionStorage.getItem(MAP_LABEL_KEY);
    if (mapLabel !== null) {
      byId('map-label').value = mapLabel;
    }
    byId('map-label').addEventListener('change', () => {
      sessionStorage.setItem(MAP_LABEL_KEY, byId('map-label').value.trim());
      refresh();
    });
    byId('filter-node').addEventListener('input', () => drawDecisions(last.decisions));
    byId('filter-outcome').addEventListener('change', () => drawDecisions(last.decisions));
    refresh();
  });
}());
