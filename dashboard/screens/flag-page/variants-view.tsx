/** A flag's variants and their values, as the flag's type writes them (text, number, JSON). */
import { LongText } from '../../components/long-text.js';
import type { Flag } from '../../types.js';

export function VariantsView({ flag }: { flag: Flag }) {
  const variants: Record<string, unknown> = 'variants' in flag ? flag.variants : { on: true, off: false };
  return (
    <table class="variants">
      <thead>
        <tr>
          <th scope="col">Variant</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(variants).map(([name, value]) => (
          <tr key={name}>
            <td class="mono">{name}</td>
            <td class={typeof value === 'string' ? undefined : 'mono'}>
              <LongText
                text={typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
                limit={120}
                lines={4}
                what={`the value of variant ${name}`}
              />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
