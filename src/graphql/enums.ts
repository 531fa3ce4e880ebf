// Enums shared by several resources, from the Prisma schema's enums.
import {
  ActivityStatus,
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

export const CampaignTypeEnum = builder.enumType(CampaignType, { name: 'CampaignType' });
export const RewardTypeEnum = builder.enumType(RewardType, { name: 'RewardType' });
export const TransactionTypeEnum = builder.enumType(TransactionType, { name: 'TransactionType' });
export const TransactionSourceEnum = builder.enumType(TransactionSource, { name: 'TransactionSource' });
export const CustomerStatusEnum = builder.enumType(CustomerStatus, { name: 'CustomerStatus' });
export const ActivityStatusEnum = builder.enumType(ActivityStatus, { name: 'ActivityStatus' });
export const CustomerRewardStatusEnum = builder.enumType(CustomerRewardStatus, { name: 'CustomerRewardStatus' });
export const TierQualificationEnum = builder.enumType(TierQualification, { name: 'TierQualification' });
export const TierWindowEnum = builder.enumType(TierWindow, { name: 'TierWindow' });
export const MembershipStatusEnum = builder.enumType(MembershipStatus, { name: 'MembershipStatus' });
export const MembershipSourceEnum = builder.enumType(MembershipSource, { name: 'MembershipSource' });
export const ReferralStatusEnum = builder.enumType(ReferralStatus, { name: 'ReferralStatus' });
