import type { Connection } from './database.ts'
import { accounts } from './account.ts'
import { joinable } from './account/joinable.ts'
import { bans } from './ban.ts'
import { boosts } from './boost.ts'
import { messages } from './message.ts'
import { display } from './message/display.ts'
import { messageAttachments } from './message/attachment.ts'
import { pagination } from './message/pagination.ts'
import { receiving } from './room/receiving.ts'
import { memberships } from './membership.ts'
import { rooms } from './room.ts'
import { sessions } from './session.ts'
import { users } from './user.ts'
import { involvements } from './membership/involvement.ts'
import { roomDestruction } from './room/destruction.ts'
import { roomMemberships } from './room/memberships.ts'
import { closedRooms } from './rooms/closed.ts'
import { directRooms } from './rooms/direct.ts'
import { openRooms } from './rooms/open.ts'
import { sidebars } from './user/sidebar.ts'
import { searches } from './search.ts'
import { searchable } from './message/searchable.ts'
import { autocompletable } from './user/autocompletable.ts'
import { avatars } from './user/avatar.ts'
import { cacheVersions } from './cache-versions.ts'
import { blobs } from './blob.ts'
import { deactivatable } from './user/deactivatable.ts'
import { roles } from './user/role.ts'
import { roster } from './user/roster.ts'
import { logos } from './account/logo.ts'
import { variants } from './blob/variants.ts'
import { previews } from './blob/previews.ts'
import { profiles } from './user/profile.ts'
import { pushSubscriptions } from './push/subscription.ts'
import { messagePusher } from './room/message-pusher.ts'
import { bannable } from './user/bannable.ts'
import { webhooks } from './webhook.ts'
import { bots } from './user/bot.ts'
import { oidcIdentities } from './user/oidc-identity.ts'
import { emailStanding } from './user/email-standing.ts'
import { emailNotifications } from './email/notification.ts'
import { emailPreferences } from './email/preference.ts'
import { missedMessages } from './email/missed-messages.ts'
import { claimable } from './user/claimable.ts'
import { exportRows } from './export/rows.ts'
import { erasable } from './user/erasable.ts'
import { mentionIndex } from './message/mentions.ts'
import { inbox } from './user/mentions.ts'
import { savedMessages } from './saved-message.ts'
import { unreadMarks } from './membership/unread-marks.ts'

// Every model prepares its statements once per connection: the store builds one set for the
// reader and one for the writer.
export function createModels(db: Connection) {
  return {
    db,
    accounts: accounts(db),
    accountJoinCodes: joinable(db),
    bans: bans(db),
    bannable: bannable(db),
    boosts: boosts(db),
    blobs: blobs(db),
    blobVariants: variants(db),
    blobPreviews: previews(db),
    profiles: profiles(db),
    pushSubscriptions: pushSubscriptions(db),
    messagePusher: messagePusher(db),
    messageDisplay: display(db),
    messageAttachments: messageAttachments(db),
    messagePages: pagination(db),
    messages: messages(db),
    roomReceiving: receiving(db),
    memberships: memberships(db),
    rooms: rooms(db),
    sessions: sessions(db),
    avatars: avatars(db),
    sidebars: sidebars(db),
    searches: searches(db),
    searchable: searchable(db),
    autocompletable: autocompletable(db),
    users: users(db),
    closedRooms: closedRooms(db),
    directRooms: directRooms(db),
    involvements: involvements(db),
    openRooms: openRooms(db),
    roomDestruction: roomDestruction(db),
    roomMemberships: roomMemberships(db),
    cacheVersions: cacheVersions(db),
    deactivatable: deactivatable(db),
    roles: roles(db),
    roster: roster(db),
    logos: logos(db),
    webhooks: webhooks(db),
    bots: bots(db),
    oidcIdentities: oidcIdentities(db),
    emailStanding: emailStanding(db),
    emailNotifications: emailNotifications(db),
    emailPreferences: emailPreferences(db),
    missedMessages: missedMessages(db),
    claims: claimable(db),
    exportRows: exportRows(db),
    erasable: erasable(db),
    mentionIndex: mentionIndex(db),
    inbox: inbox(db),
    savedMessages: savedMessages(db),
    unreadMarks: unreadMarks(db),
  }
}

export type Models = ReturnType<typeof createModels>
