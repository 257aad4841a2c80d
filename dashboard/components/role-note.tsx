/** What a role may not do on this screen, said once above it (the controls say it in their `title`). */
import type { Allowed } from '../roles.js';

export function RoleNote({ allowed, what }: { allowed: Allowed; what: string }) {
  if (allowed.ok) return null;
  return (
    <p class="role-note">
      <strong>View only.</strong> {what}: {allowed.reason}.
    </p>
  );
}
