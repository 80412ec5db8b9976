/**
 * The name a space opened by "New chat" has until its conversation is named (by its first message or
 * the operator): then the space takes the conversation's title, so the sidebar does not list seven
 * spaces called by their creation time. Pure data: the web names new chats with it too.
 */
export const UNTITLED_CHAT_SPACE = 'New chat';
