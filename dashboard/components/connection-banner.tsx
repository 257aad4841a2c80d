/**
 * Says so while the live feed is down (`useConnection`): what the user sees may be out of date
 * and changes may not save. The live region is always there, so the message is announced when
 * it appears, and it stays in view at the top of the window while the page scrolls.
 */
import { useConnection } from '../events.js';

export function ConnectionBanner() {
  const state = useConnection();
  return (
    <div role="status" class={state === 'lost' ? 'connection lost' : 'connection'}>
      {state === 'lost' &&
        'Lost the connection to the server. Reconnecting… Until it is back, changes may not be saved and changes made elsewhere do not show.'}
    </div>
  );
}
