"use client";
import { createContext, useContext, type ReactNode } from "react";
import type { Role } from "@/server/modules/auth/actor";

export interface UiUser {
  id: number;
  username: string;
  ruolo: Role;
}

const RANK: Record<Role, number> = { operatore: 1, responsabile: 2, amministratore: 3 };

export function roleAtLeast(user: UiUser, role: Role): boolean {
  return RANK[user.ruolo] >= RANK[role];
}

const SessionContext = createContext<UiUser | null>(null);

export function SessionProvider({ user, children }: { user: UiUser; children: ReactNode }) {
  return <SessionContext.Provider value={user}>{children}</SessionContext.Provider>;
}

export function useUser(): UiUser {
  const user = useContext(SessionContext);
  if (!user) throw new Error("useUser fuori da SessionProvider");
  return user;
}
