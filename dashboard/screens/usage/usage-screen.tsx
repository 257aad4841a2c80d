/**
 * `#/env/P/E/usage`: the apps and SDK instances that report to this environment (grouped by app,
 * with their SDK, runtime, state, the revision they hold and when last seen), those behind the
 * environment's revision called out, and the keys evaluated that are not flags (deleted while
 * still in use, or never created). Ages are told by the server's clock (`at` of the answer).
 */
import { ErrorText } from '../../components/page-parts.js';
import { number } from '../../format.js';
import { useResource } from '../../resource.js';
import { envHref } from '../../route.js';
import type { ClientsAnswer, UnknownKey } from '../../usage/api.js';
import { AppGroups, BehindCallout } from './clients.js';
import { UnknownKeys } from './unknown-keys.js';
import { UsageHeader, UsageOff, usageLoad, useUsageRefresh } from './usage-common.js';

export function UsageScreen({ project, env }: { project: string; env: string }) {
  const id = `${project}/${env}`;
  const clients = useResource(usageLoad<ClientsAnswer>(project, env, 'clients'), `${id}/clients`);
  const unknown = useResource(usageLoad<UnknownKey[]>(project, env, 'unknown'), `${id}/unknown`);
  useUsageRefresh(project, env, () => {
    clients.reload();
    unknown.reload();
  });
  const answer = clients.data;
  const header = <UsageHeader project={project} env={env} stale={false} />;
  if (answer === null || unknown.data === null)
    return (
      <>
        {header}
        <UsageOff />
      </>
    );
  const list = answer?.clients;
  const now = answer ? Date.parse(answer.at) : 0;
  const apps = new Set(list?.map((c) => c.app?.name ?? ''));
  const reporting = list?.filter((c) => c.connected).length ?? 0;
  return (
    <>
      {header}
      <ErrorText message={clients.error ?? unknown.error} />
      {!answer || !list ? (
        !clients.error && <p>Loading…</p>
      ) : (
        <>
          <section aria-labelledby="usage-apps">
            <h3 id="usage-apps">Apps and SDK instances</h3>
            {list.length === 0 ? (
              <div class="empty-state">
                <p class="empty">
                  No SDK has reported yet. SDKs report what they evaluate every minute once they have
                  evaluated a flag (the usage option of createClient, on by default); a quiet one says it is
                  still there every 5 minutes.
                </p>
                <a href={envHref(project, env, 'connect')}>Connect your app</a>
              </div>
            ) : (
              <>
                <p>
                  {number(list.length)} {list.length === 1 ? 'instance' : 'instances'} of {number(apps.size)}{' '}
                  {apps.size === 1 ? 'app' : 'apps'}; {number(reporting)} reported in the last 10 minutes.
                  This environment is at revision {number(answer.revision)}.
                </p>
                <BehindCallout clients={list} revision={answer.revision} now={now} />
                <AppGroups clients={list} now={now} />
              </>
            )}
          </section>
          <UnknownKeys project={project} env={env} keys={unknown.data} now={now} />
        </>
      )}
    </>
  );
}
