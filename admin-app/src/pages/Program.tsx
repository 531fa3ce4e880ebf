// Program: the rewards, earning rules, tiers, booster campaigns and referral program, one tab each,
// the referrals held for review, and a draft of the program tried on a past period
// (each a page of its own path, so it can be linked to).
import { Link } from '../router';
import { NotFound, PageTitle } from '../ui';
import { Boosters } from './program/Boosters';
import { EarningRules } from './program/EarningRules';
import { Referral } from './program/Referral';
import { ReferralReview } from './program/ReferralReview';
import { Rewards } from './program/Rewards';
import { Tiers } from './program/Tiers';
import { TryChange } from './program/TryChange';

const parts = [
  { path: '/program/rewards', label: 'Rewards', Page: Rewards },
  { path: '/program/earning-rules', label: 'Earning rules', Page: EarningRules },
  { path: '/program/tiers', label: 'VIP tiers', Page: Tiers },
  { path: '/program/boosters', label: 'Boosters', Page: Boosters },
  { path: '/program/referrals', label: 'Referral program', Page: Referral },
  { path: '/program/referral-review', label: 'Referrals under review', Page: ReferralReview },
  { path: '/program/try', label: 'Try a change', Page: TryChange },
];

export function Program({ path }: { path: string }) {
  // /program shows the first part; any other path under it is no page
  const part = path === '/program' ? parts[0]! : parts.find((p) => p.path === path);
  if (!part) return <NotFound />;
  return (
    <>
      <PageTitle>Program</PageTitle>
      <nav aria-label="Program" className="subnav">
        <ul>
          {parts.map((p) => (
            <li key={p.path}>
              <Link to={p.path} aria-current={p === part ? 'page' : undefined}>
                {p.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <part.Page />
    </>
  );
}
