// The labels that qualify a judging's figures ("dev mode", "emulated"), each with the sentence
// that says what it means, and the host fingerprint the figures were measured on.
import type { HostFingerprint } from '../../../contracts';

export function HostLabels({ devMode, emulated }: { devMode: boolean; emulated: boolean }) {
  if (!devMode && !emulated) return null;
  return (
    <div className="notice warn small" data-testid="host-labels">
      {devMode && (
        <p style={{ margin: 0 }}>
          <span className="badge warn">dev mode</span> The runner’s hardware does not match this
          target (a development machine): the figures show the method, not this target’s speed.
        </p>
      )}
      {emulated && (
        <p style={{ margin: devMode ? '0.4em 0 0' : 0 }}>
          <span className="badge warn">emulated</span> Windows was emulated (Wine on Linux): timings
          are not comparable with a native Windows host.
        </p>
      )}
    </div>
  );
}

export function HostFingerprintView({ host }: { host: HostFingerprint }) {
  const rows: [string, string][] = [
    ['CPU', `${host.cpuModel} (${host.cpuVendor}, ${host.cores} cores)`],
    ['OS', host.os === host.kernel ? host.os : `${host.os}, kernel ${host.kernel}`],
    ['compiler', host.compiler],
    ['sandbox', host.sandbox],
    [
      'pinned CPU',
      host.pinnedCpu === null
        ? '–'
        : `${host.pinnedCpu}${host.smtSiblings.length ? ` (SMT siblings ${host.smtSiblings.join(', ')})` : ''}`,
    ],
    ['governor', host.governor ?? 'unknown (not readable)'],
    ['turbo', host.turbo ?? 'unknown (not readable)'],
    ['huge pages', host.thp ?? '–'],
    ['perf', host.perfVersion ?? '–'],
    [
      'hardware counters',
      host.hardwareCounters ? 'yes' : 'unsupported (no PMU on this host, e.g. a virtual machine)',
    ],
    ['host', host.hostname],
  ];
  return (
    <details>
      <summary>Host fingerprint</summary>
      <dl className="kv small">
        {rows.map(([k, v]) => (
          <div key={k} style={{ display: 'contents' }}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
