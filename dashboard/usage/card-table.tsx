/** A usage table: named, its columns headed by `heads`, its rows cards on a phone (`TableWrap`). */
import type { ComponentChildren } from 'preact';
import { TableWrap } from '../components/page-parts.js';

export function CardTable({
  label,
  heads,
  children,
}: {
  label: string;
  heads: readonly string[];
  children: ComponentChildren;
}) {
  return (
    <TableWrap label={label} cards>
      <table>
        <thead>
          <tr>
            {heads.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}
