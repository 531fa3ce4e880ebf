// The Prisma schema's enums, each declared once with the faces that use it.
import {
  ActivityStatus,
  ApiKeyType,
  CampaignType,
  CustomerRewardStatus,
  CustomerStatus,
  MembershipSource,
  MembershipStatus,
  ReferralStatus,
  RewardType,
  TierQualification,
  TierWindow,
  TransactionSource,
  TransactionType,
} from '../generated/prisma/enums.js';
import { builder } from './builder.js';

export const CampaignTypeEnum = builder.enumType(CampaignType, { name: 'CampaignType', subGraphs: ['public', 'admin'] });
export const RewardTypeEnum = builder.enumType(RewardType, { name: 'RewardType', subGraphs: ['public', 'admin'] });
export const TransactionTypeEnum = builder.enumType(TransactionType, { name: 'TransactionType', subGraphs: ['public', 'admin'] });
export const TransactionSourceEnum = builder.enumType(TransactionSource, {
  name: 'TransactionSource',
  subGraphs: ['public', 'admin'],
});
export const CustomerStatusEnum = builder.enumType(CustomerStatus, { name: 'CustomerStatus', subGraphs: ['public', 'admin'] });
export const ActivityStatusEnum = builder.enumType(ActivityStatus, { name: 'ActivityStatus', subGraphs: ['public', 'admin'] });
export const CustomerRewardStatusEnum = builder.enumType(CustomerRewardStatus, {
  name: 'CustomerRewardStatus',
  subGraphs: ['public'],
});
export const TierQualificationEnum = builder.enumType(TierQualification, {
  name: 'TierQualification',
  subGraphs: ['public', 'admin'],
});
export const TierWindowEnum = builder.enumType(TierWindow, { name: 'TierWindow', subGraphs: ['public', 'admin'] });
export const MembershipStatusEnum = builder.enumType(MembershipStatus, { name: 'MembershipStatus', subGraphs: ['public'] });
export const MembershipSourceEnum = builder.enumType(MembershipSource, { name: 'MembershipSource', subGraphs: ['public'] });
export const ReferralStatusEnum = builder.enumType(ReferralStatus, {
  name: 'ReferralStatus',
  subGraphs: ['public', 'admin'],
  description:
    "held: under review by the shop (a fraud check flagged it): no reward to either side until the shop approves it; rejected: the shop rejected it, or the friend's order was refunded",
});
export const ApiKeyTypeEnum = builder.enumType(ApiKeyType, {
  name: 'ApiKeyType',
  subGraphs: ['admin'],
  description: 'full: the highest level of every scope; read_only: read of every scope; custom: per scope',
});
